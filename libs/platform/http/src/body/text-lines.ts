import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { DomainError } from '../errors/domain-error';
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
 * imports, where each row is judged on its own. A tolerant reader also refuses text that is not UTF-8
 * (a strict one reads invalid bytes as U+FFFD, as it always did).
 */
export interface TolerantReading {
  readonly tolerant: true;
}

/** Turns text into records, one chunk at a time; whatever is not complete yet waits for the next chunk. */
export interface RecordParser<R extends object> {
  push(text: string, out: (R | RecordFailure)[]): void;
  /** The end of the text: the last record needs no line break. */
  end(out: (R | RecordFailure)[]): void;
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

async function* parsedBatches<R extends object>(stream: Readable, parser: RecordParser<R>, fatal: boolean): AsyncGenerator<(R | RecordFailure)[]> {
  for await (const text of textOf(stream, fatal)) {
    const batch: (R | RecordFailure)[] = [];
    parser.push(text, batch);
    if (batch.length > 0) yield batch;
  }
  const last: (R | RecordFailure)[] = [];
  parser.end(last);
  if (last.length > 0) yield last;
}

/**
 * UTF-8 text of a stream, chunk by chunk (characters split across chunks kept whole, BOM dropped).
 * With `fatal`, bytes that are not UTF-8 fail with 400 naming where they are.
 */
async function* textOf(stream: Readable, fatal = false): AsyncGenerator<string> {
  // TextDecoder decodes (and validates) faster than StringDecoder, and drops a leading BOM itself.
  const decoder = new TextDecoder('utf-8', { fatal });
  let offset = 0;
  for await (const chunk of chunksOf(stream)) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const text = decode(decoder, bytes, offset);
    offset += bytes.length;
    if (text.length > 0) yield text;
  }
  const rest = decode(decoder, undefined, offset);
  if (rest.length > 0) yield rest;
}

function decode(decoder: TextDecoder, chunk: Buffer | undefined, offset: number): string {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    const where = chunk === undefined ? `its last bytes` : `bytes ${offset + 1} to ${offset + chunk.length}`;
    throw new DomainError('invalid_request', `body: is not UTF-8 text (an invalid byte sequence in ${where})`);
  }
}
