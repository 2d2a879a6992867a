import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { DomainError } from '@guidepost/platform-errors';
import { describeSize } from '../errors/size-limit';
import { chunksOf } from './byte-limit';

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
async function* parsedBatches<R extends object>(stream: Readable, parser: RecordParser<R>, tolerant: boolean): AsyncGenerator<(R | RecordFailure)[]> {
  // TextDecoder decodes (and validates) faster than StringDecoder, and drops a leading BOM itself.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  // The bytes of a character the last chunk ended in the middle of (which the decoder holds back).
  let unfinished: Buffer = EMPTY;
  for await (const chunk of chunksOf(stream)) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch {
      if (tolerant) throw notUtf8(`bytes ${offset + 1} to ${offset + bytes.length}`);
      const before: (R | RecordFailure)[] = [];
      parser.push(textBeforeInvalidBytes(Buffer.concat([unfinished, bytes]), offset === 0), before);
      if (before.length > 0) yield before;
      throw new DomainError('invalid_request', `line ${parser.lineAtEnd()}: ${NOT_UTF8}`);
    }
    if (!tolerant) unfinished = unfinishedCharacter(unfinished, bytes);
    offset += bytes.length;
    if (text.length === 0) continue;
    const batch: (R | RecordFailure)[] = [];
    parser.push(text, batch);
    if (batch.length > 0) yield batch;
  }
  try {
    decoder.decode();
  } catch {
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

const EMPTY = Buffer.alloc(0);

/** Bytes in a UTF-8 sequence by its first byte (0 for a byte that cannot start one). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * The trailing bytes of a character still incomplete after `bytes` (the stream up to here being
 * valid UTF-8): at most three, and only looked for at the end, so this costs nothing per chunk.
 */
function unfinishedCharacter(previous: Buffer, bytes: Buffer): Buffer {
  // A character is at most four bytes long, so a chunk of four or more holds its own last lead byte.
  const tail = bytes.length >= 4 ? bytes : Buffer.concat([previous, bytes]);
  let lead = tail.length - 1;
  while (lead > 0 && lead > tail.length - 4 && (tail[lead] & 0xc0) === 0x80) lead -= 1;
  if (lead < 0) return EMPTY;
  return tail.length - lead < sequenceLength(tail[lead]) ? Buffer.from(tail.subarray(lead)) : EMPTY;
}

/** The text of the valid UTF-8 that `bytes` starts with (only called once the decoder found a bad sequence). */
function textBeforeInvalidBytes(bytes: Buffer, atStart: boolean): string {
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes[at]);
    if (length === 0 || at + length > bytes.length || !validSequence(bytes, at, length)) break;
    at += length;
  }
  const text = bytes.toString('utf8', 0, at);
  return atStart && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Whether the `length` bytes at `at` are one well-formed UTF-8 character (no overlong forms, no surrogates). */
function validSequence(bytes: Buffer, at: number, length: number): boolean {
  for (let next = at + 1; next < at + length; next += 1) if ((bytes[next] & 0xc0) !== 0x80) return false;
  const lead = bytes[at];
  const second = bytes[at + 1];
  if (lead === 0xe0) return second >= 0xa0;
  if (lead === 0xed) return second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90;
  if (lead === 0xf4) return second <= 0x8f;
  return true;
}
