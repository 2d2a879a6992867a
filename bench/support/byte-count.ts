import type { Readable } from 'node:stream';

export interface ByteCount {
  readonly bytes: number;
  /** Line breaks seen: the rows of an NDJSON document. */
  readonly lines: number;
}

const LINE_FEED = 0x0a;

/** Reads a byte stream to its end, keeping nothing but the counts. */
export async function countBytesAndLines(stream: Readable): Promise<ByteCount> {
  let bytes = 0;
  let lines = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += buffer.length;
    for (let at = buffer.indexOf(LINE_FEED); at !== -1; at = buffer.indexOf(LINE_FEED, at + 1)) lines += 1;
  }
  return { bytes, lines };
}
