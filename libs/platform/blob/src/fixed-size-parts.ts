/** A piece of a body cut for upload; only the final piece has `last` set. */
export interface BodyPart {
  readonly data: Buffer;
  readonly last: boolean;
}

/**
 * Cuts a byte stream into parts of exactly `partSize` bytes followed by a last part of the rest (empty
 * only when the whole body is). A full part is handed out once a byte beyond it has arrived, so its
 * consumer knows whether it is the last one: a body that fits in one part needs no multipart upload.
 * Memory holds one part plus one chunk of the body; the body is read only as fast as parts are taken.
 */
export async function* fixedSizeParts(body: AsyncIterable<unknown>, partSize: number): AsyncGenerator<BodyPart> {
  if (!Number.isInteger(partSize) || partSize < 1)
    throw new RangeError(`part size must be a positive whole number of bytes, got ${partSize}`);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of body) {
    const bytes = asBuffer(chunk);
    pending.push(bytes);
    pendingBytes += bytes.length;
    while (pendingBytes > partSize) {
      const joined = Buffer.concat(pending, pendingBytes);
      yield { data: joined.subarray(0, partSize), last: false };
      pending = [joined.subarray(partSize)];
      pendingBytes -= partSize;
    }
  }
  yield { data: Buffer.concat(pending, pendingBytes), last: true };
}

/** Streams of bytes yield Buffers; a stream built from strings (`Readable.from(['...'])`) yields strings, stored as UTF-8. */
function asBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError(`a blob body must yield bytes or strings, got ${typeof chunk}`);
}
