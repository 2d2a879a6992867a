import { Readable } from 'node:stream';
import { DomainError } from '@guidepost/platform-errors';
import { payloadTooLarge, type SizedThing } from '../errors/size-limit';

/**
 * The chunks of a stream, read without destroying it when the reader stops early. A request stream
 * is the socket's: destroying it would cut the connection before the error response goes out. The
 * exception filter closes the connection after answering instead, when the body was not read to
 * its end.
 */
export function chunksOf(stream: Readable): AsyncIterable<Buffer | string> {
  return stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>;
}

/**
 * Passes a request body or uploaded file through lazily (nothing is read until the consumer reads)
 * and fails it with 413 as soon as more than `limit` bytes have gone through, so memory stays at one
 * chunk whatever the size. A source that breaks off (client gone, multipart framing cut short) fails
 * with 400: it is the sender's doing, not a server error.
 */
export function limitBytes(source: Readable, limit: number, thing: SizedThing): Readable {
  async function* counted(): AsyncGenerator<Buffer | string> {
    let received = 0;
    const chunks = chunksOf(source)[Symbol.asyncIterator]();
    for (;;) {
      const next = await chunks.next().catch((error: unknown) => {
        // A source that refuses its own content (a multipart reader) has said what is wrong already.
        if (error instanceof DomainError) throw error;
        throw new DomainError('invalid_request', `${thing}: could not be read to its end (${describe(error)})`);
      });
      if (next.done) return;
      received += next.value.length;
      if (received > limit) throw payloadTooLarge(thing, limit);
      yield next.value;
    }
  }
  return Readable.from(counted(), { objectMode: false });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
