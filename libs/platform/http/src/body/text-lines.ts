import type { Readable } from 'node:stream';
import { DomainError } from '@guidepost/platform-errors';
import { describeSize } from '../errors/size-limit';
import { chunksOf } from './byte-limit';
import { Utf8Chunks } from './utf8-chunks';

/**
 * The longest single record (NDJSON line or CSV row) a reader holds in memory. Records are read one
 * at a time so that 200 MB files stay cheap; a "record" that grows past this is a missing newline or
 * an unterminated quote, not data.
 */
export const MAX_RECORD_CHARS = 1024 * 1024;

export const RECORD_TOO_LONG = `record is longer than ${describeSize(MAX_RECORD_CHARS)} (missing line break or unterminated quote?)`;

/** A record a tolerant reader could not read: its line and why. Reading goes on with the next record. */
export interface RecordFailure {
  /** 1-based line on which the record starts. */
  readonly line: number;
  readonly error: string;
}

export function isRecordFailure<R extends object>(record: R | RecordFailure): record is RecordFailure {
  return 'error' in record;
}

/**
 * How a reader treats a record it cannot read. By default (strict) it fails the whole stream with 400
 * naming the line, after handing out the records before it: for requests answered synchronously.
 * `tolerant` hands out a `RecordFailure` in the record's place and goes on with the next line: for
 * imports, where each row is judged on its own. Both refuse text that is not UTF-8 rather than read
 * invalid bytes as U+FFFD: strict reading names the line, tolerant reading the bytes (an import checks
 * its file as a whole before reading it; see `assertUtf8` in the ingestion service).
 */
export interface TolerantReading {
  readonly tolerant: true;
}

/** Turns text into records, one chunk at a time; whatever is not complete yet waits for the next chunk. */
export interface RecordParser<R extends object> {
  push(text: string, out: (R | RecordFailure)[]): void;
  /** The end of the text: the last record needs no line break. */
  end(out: (R | RecordFailure)[]): void;
  /** The 1-based line on which the text pushed so far ends: where a problem after it lies. */
  lineAtEnd(): number;
}

/**
 * The records of a byte stream, one batch per chunk (yielding each record from an async generator
 * would cost several times more per record, which shows on imports of millions), failures in place.
 */
export async function* tolerantBatches<R extends object>(stream: Readable, parser: RecordParser<R>): AsyncGenerator<(R | RecordFailure)[]> {
  yield* parsedBatches(stream, parser, true);
}

/** The records of a byte stream, one batch per chunk, until the first failure: then a 400 naming its line. */
export async function* strictBatches<R extends object>(stream: Readable, parser: RecordParser<R>): AsyncGenerator<R[]> {
  for await (const batch of parsedBatches(stream, parser, false)) {
    const failed = batch.findIndex((record) => isRecordFailure(record));
    if (failed === -1) {
      yield batch as R[];
      continue;
    }
    // The records before the bad one are handed out first, as a reader that stops at the bad line would.
    if (failed > 0) yield batch.slice(0, failed) as R[];
    const failure = batch[failed] as RecordFailure;
    throw new DomainError('invalid_request', `line ${failure.line}: ${failure.error}`);
  }
}

const NOT_UTF8 = 'is not UTF-8 text (an invalid byte sequence)';

/**
 * UTF-8 text of a stream, chunk by chunk (characters split across chunks kept whole, BOM dropped),
 * parsed as it comes. Bytes that are not UTF-8 fail the stream with 400: tolerant reading names the
 * bytes; strict reading first parses the text before them (so the records before are handed out) and
 * then names the line they are on.
 */
async function* parsedBatches<R extends object>(
  stream: Readable,
  parser: RecordParser<R>,
  tolerant: boolean,
): AsyncGenerator<(R | RecordFailure)[]> {
  const utf8 = new Utf8Chunks();
  let offset = 0;
  for await (const chunk of chunksOf(stream)) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const text = utf8.decode(bytes);
    if (text === undefined) {
      if (tolerant) throw notUtf8(`bytes ${offset + 1} to ${offset + bytes.length}`);
      const before: (R | RecordFailure)[] = [];
      parser.push(utf8.textBeforeInvalidBytes(bytes), before);
      if (before.length > 0) yield before;
      throw new DomainError('invalid_request', `line ${parser.lineAtEnd()}: ${NOT_UTF8}`);
    }
    offset += bytes.length;
    if (text.length === 0) continue;
    const batch: (R | RecordFailure)[] = [];
    parser.push(text, batch);
    if (batch.length > 0) yield batch;
  }
  if (utf8.endsInsideCharacter()) {
    if (tolerant) throw notUtf8('its last bytes');
    throw new DomainError('invalid_request', `line ${parser.lineAtEnd()}: is not UTF-8 text (it ends in the middle of a character)`);
  }
  const last: (R | RecordFailure)[] = [];
  parser.end(last);
  if (last.length > 0) yield last;
}

function notUtf8(where: string): DomainError {
  return new DomainError('invalid_request', `body: is not UTF-8 text (an invalid byte sequence in ${where})`);
}
