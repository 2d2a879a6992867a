import { Readable } from 'node:stream';
import { Utf8Chunks } from '@guidepost/platform-http';
import { UnreadableFile } from '../domain/unreadable-file';

/** Blank bytes (and a UTF-8 byte order mark) that an upload may hold without holding a row. */
const BLANK_BYTES: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf]);
/** How much blank text is looked at before the upload is taken as having content (memory stays at this). */
const LOOK_AHEAD_BYTES = 64 * 1024;

/**
 * The upload as a stream from its first byte, or undefined when it holds nothing but blanks (an empty
 * upload, answered with 400 before anything is stored). Reads only up to the first byte that is not
 * blank, never further than `LOOK_AHEAD_BYTES`.
 */
export async function withContent(upload: Readable): Promise<Readable | undefined> {
  // Not destroyed when left early: the rest of the upload is read by the returned stream.
  const chunks = upload.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer | string>;
  const seen: Buffer[] = [];
  let seenBytes = 0;
  for (;;) {
    const next = await chunks.next();
    if (next.done) return undefined;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    seen.push(chunk);
    seenBytes += chunk.length;
    if (!isBlank(chunk) || seenBytes >= LOOK_AHEAD_BYTES) break;
  }
  async function* replayed(): AsyncGenerator<Buffer> {
    yield* seen.splice(0);
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
  }
  return Readable.from(replayed(), { objectMode: false });
}

function isBlank(chunk: Buffer): boolean {
  return chunk.every((byte) => BLANK_BYTES.has(byte));
}

/**
 * Fails with 400 naming where the bytes are when the upload is not UTF-8 text. Read once before any
 * row is imported, so that a file that is not text fails as a whole instead of halfway through; the
 * bytes are checked without being decoded, so this pass costs little beside the reading that follows.
 */
export async function assertUtf8(upload: Readable): Promise<void> {
  const utf8 = new Utf8Chunks();
  let offset = 0;
  for await (const chunk of upload as AsyncIterable<Buffer>) {
    if (!utf8.check(chunk)) {
      throw new UnreadableFile(`the file is not UTF-8 text (an invalid byte sequence in bytes ${offset + 1} to ${offset + chunk.length})`);
    }
    offset += chunk.length;
  }
  if (utf8.endsInsideCharacter()) throw new UnreadableFile('the file is not UTF-8 text (it ends in the middle of a character)');
}
