import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type Readable, Transform, type TransformCallback } from 'node:stream';

/**
 * The request body as it streams to its reader (a parser, the handler, the proxy), hashed on the way
 * with SHA-256: nothing is buffered beyond what the stream itself holds. `digest` is known once the
 * last byte has passed; a body that was not read to its end (refused early, cut off) never gets one.
 *
 * It stands in for the request where Fastify and the gateway's proxy look at one: `receivedEncodedLength`
 * (Fastify compares it with `Content-Length`) and `complete` (whether the client sent the whole body).
 */
export class HashingBody extends Transform {
  receivedEncodedLength = 0;
  private readonly hash = createHash('sha256');
  private digested: Buffer | undefined;
  private readonly waiting: ((digest: Buffer | undefined) => void)[] = [];

  constructor(
    private readonly source: Readable,
    private readonly request: IncomingMessage,
  ) {
    super();
    // Like the request it stands for, a body broken off by its client must not bring the process down
    // when no reader listens for the error (the proxy's pipe, say); readers that listen still get it.
    this.on('error', () => undefined);
    source.once('error', (error) => this.destroy(error));
    request.once('close', () => {
      if (!request.complete) this.destroy(new Error('the client closed the connection before the end of its body'));
    });
    this.once('close', () => this.settle(this.digested));
    source.pipe(this);
  }

  /** Whether the client sent its whole body (the request's own flag, which the proxy reads on the stream it gets). */
  get complete(): boolean {
    return this.request.complete;
  }

  /** The SHA-256 of the whole body once it has been read to its end. */
  get digest(): Buffer | undefined {
    return this.digested;
  }

  /**
   * The digest, waiting at most `graceMs` for the last bytes of a body the client has sent whole to pass
   * (they are on their way to the reader); undefined at once for a body the client has not sent whole.
   */
  digestWithin(graceMs: number): Promise<Buffer | undefined> {
    if (this.digested !== undefined || this.destroyed || !this.request.complete) return Promise.resolve(this.digested);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), graceMs);
      this.waiting.push((digest) => {
        clearTimeout(timer);
        resolve(digest);
      });
    });
  }

  /**
   * Stops hashing a body nobody reads any more (the answer is out), so the rest of it is discarded as it
   * arrives instead of piling up here.
   */
  detach(): void {
    if (this.digested !== undefined) return;
    this.source.unpipe(this);
    if (!this.request.complete) this.source.resume();
    this.settle(undefined);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.digested = this.hash.digest();
    this.settle(this.digested);
    callback();
  }

  private settle(digest: Buffer | undefined): void {
    for (const resolve of this.waiting.splice(0)) resolve(digest);
  }
}

/** The result of reading a whole body only to compare it: its digest, or that it is longer than `maxBytes`. */
export type BodyDigest = { readonly kind: 'digest'; readonly sha256: Buffer } | { readonly kind: 'too_long' };

/**
 * Reads a body to its end (or past `maxBytes`), keeping nothing but its SHA-256. A body found too long
 * is left paused where it stands (the error handler drains or closes it), never destroyed: destroying
 * the request would cut the connection before the client reads its answer.
 */
export function digestBody(body: Readable, maxBytes: number): Promise<BodyDigest> {
  const hash = createHash('sha256');
  let bytes = 0;
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      bytes += piece.length;
      if (bytes > maxBytes) {
        stop();
        body.pause();
        resolve({ kind: 'too_long' });
        return;
      }
      hash.update(piece);
    };
    const onEnd = (): void => {
      stop();
      resolve({ kind: 'digest', sha256: hash.digest() });
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    const onClose = (): void => onError(new Error('the client closed the connection before the end of its body'));
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
    body.once('close', onClose);
  });
}
