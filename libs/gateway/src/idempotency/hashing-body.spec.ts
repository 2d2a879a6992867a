import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { digestBody, HashingBody } from './hashing-body';

/** Stands in for the request whose `complete` and `close` the hashing body watches. */
function requestLike(): IncomingMessage & { complete: boolean } {
  return Object.assign(new EventEmitter(), { complete: false }) as unknown as IncomingMessage & { complete: boolean };
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();

describe('HashingBody', () => {
  it('passes every byte on and knows their SHA-256 once the last has passed', async () => {
    const source = new PassThrough();
    const request = requestLike();
    const body = new HashingBody(source, request);
    const pieces = [Buffer.from('{"a":'), Buffer.from('1}\n'), Buffer.alloc(100_000, 'z')];
    for (const piece of pieces) source.write(piece);
    source.end();
    request.complete = true;
    const read: Buffer[] = [];
    for await (const chunk of body) read.push(chunk as Buffer);
    const whole = Buffer.concat(pieces);
    expect(Buffer.concat(read).equals(whole)).toBe(true);
    expect(body.digest?.equals(sha256(whole))).toBe(true);
    expect(body.receivedEncodedLength).toBe(whole.length);
    expect(body.complete).toBe(true);
    expect((await body.digestWithin(10))?.equals(sha256(whole))).toBe(true);
  });

  it('has no digest for a body nobody read to its end, and says so at once when the client did not send it whole', async () => {
    const source = new PassThrough();
    const body = new HashingBody(source, requestLike());
    source.write(Buffer.alloc(10, 'a'));
    expect(body.digest).toBeUndefined();
    await expect(body.digestWithin(5_000)).resolves.toBeUndefined();
  });

  it('waits a little for the last bytes of a body the client sent whole', async () => {
    const source = new PassThrough();
    const request = requestLike();
    const body = new HashingBody(source, request);
    request.complete = true;
    const digest = body.digestWithin(2_000);
    source.end(Buffer.from('late'));
    body.resume();
    expect((await digest)?.equals(sha256(Buffer.from('late')))).toBe(true);
  });

  it('fails its reader when the client goes away before the end, without an unhandled error', async () => {
    const source = new PassThrough();
    const request = requestLike();
    const body = new HashingBody(source, request);
    source.write(Buffer.from('half'));
    const failed = new Promise<Error>((resolve) => body.once('error', resolve));
    request.emit('close');
    expect((await failed).message).toMatch(/closed the connection before the end of its body/);
    expect(body.digest).toBeUndefined();
  });
});

describe('digestBody', () => {
  it('hashes a whole body without keeping it', async () => {
    const data = Buffer.alloc(300_000, 'q');
    await expect(digestBody(Readable.from([data.subarray(0, 1000), data.subarray(1000)]), data.length)).resolves.toEqual({
      kind: 'digest',
      sha256: sha256(data),
    });
  });

  it('stops at the limit and leaves the body paused, not destroyed', async () => {
    const source = new PassThrough();
    const digest = digestBody(source, 10);
    source.write(Buffer.alloc(11, 'x'));
    await expect(digest).resolves.toEqual({ kind: 'too_long' });
    expect(source.destroyed).toBe(false);
    expect(source.isPaused()).toBe(true);
  });
});
