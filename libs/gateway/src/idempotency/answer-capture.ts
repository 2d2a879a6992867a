import { Readable } from 'node:stream';

/**
 * An answer's body as `onSend` sees it, read so that it can be stored: whole when it is at most
 * `maxBytes` (then `payload` is those bytes, sent as they are), or `too_large` with a `payload` that
 * sends the bytes read so far and then the rest of the stream, untouched.
 */
export type CapturedAnswer =
  | { readonly kind: 'whole'; readonly body: Buffer; readonly payload: unknown }
  | { readonly kind: 'too_large'; readonly payload: unknown }
  /** A payload this cannot read (a web stream, a Response): sent as it is, not stored. */
  | { readonly kind: 'unreadable'; readonly payload: unknown };

/**
 * Reads the answer an in-process handler gave (a string or a Buffer, already serialised) or a service
 * streamed through the proxy (a stream; held up to `maxBytes` until its end, since an answer is stored
 * before it is sent: a client that retries the moment it has its answer must find it stored).
 */
export async function captureAnswer(payload: unknown, maxBytes: number): Promise<CapturedAnswer> {
  if (payload === undefined || payload === null) return { kind: 'whole', body: Buffer.alloc(0), payload };
  if (typeof payload === 'string' || Buffer.isBuffer(payload) || payload instanceof Uint8Array) {
    const body =
      typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    return body.length <= maxBytes ? { kind: 'whole', body: Buffer.from(body), payload } : { kind: 'too_large', payload };
  }
  if (!(payload instanceof Readable)) return { kind: 'unreadable', payload };

  const pieces = payload[Symbol.asyncIterator]();
  const held: Buffer[] = [];
  let size = 0;
  for (;;) {
    const next = (await pieces.next()) as IteratorResult<unknown>;
    if (next.done === true) {
      const body = Buffer.concat(held);
      return { kind: 'whole', body, payload: body };
    }
    const piece = asBuffer(next.value);
    held.push(piece);
    size += piece.length;
    if (size > maxBytes) return { kind: 'too_large', payload: Readable.from(heldThenRest(held, pieces), { objectMode: false }) };
  }
}

async function* heldThenRest(held: readonly Buffer[], rest: AsyncIterator<unknown>): AsyncGenerator<Buffer> {
  try {
    yield* held;
    for (;;) {
      const next = await rest.next();
      if (next.done === true) return;
      yield asBuffer(next.value);
    }
  } finally {
    // A client that went away stops the rest: the source stream is closed too.
    await rest.return?.();
  }
}

function asBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), 'utf8');
}
