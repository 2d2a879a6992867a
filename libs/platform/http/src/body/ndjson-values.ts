import type { Readable } from 'node:stream';
import { jsonValueProblem, NESTED_TOO_DEEP, nestsTooDeep } from './json-checks';
import { oneByOne } from './one-by-one';
import {
  MAX_RECORD_CHARS,
  RECORD_TOO_LONG,
  type RecordFailure,
  type RecordParser,
  strictBatches,
  type TolerantReading,
  tolerantBatches,
} from './text-lines';

export interface NdjsonValue {
  /** 1-based line number in the document, blank lines included, so clients can find it. */
  readonly line: number;
  readonly value: unknown;
}

/**
 * The JSON values of a newline-delimited JSON stream, one per line, read chunk by chunk. Blank lines
 * and indentation are ignored. A line that is not JSON, or longer than `MAX_RECORD_CHARS`, fails with
 * 400 naming the line (after the values before it); tolerant reading hands out a `RecordFailure`
 * for it instead and goes on. Strict reading also refuses what a JSON body may not hold (see
 * `json-checks.ts`: nesting beyond 64 levels, NUL, lone surrogates, numbers beyond a double), naming
 * the line and the path; an import judges its rows itself, field by field.
 */
export function ndjsonValues(stream: Readable): AsyncIterableIterator<NdjsonValue>;
export function ndjsonValues(stream: Readable, options: TolerantReading): AsyncIterableIterator<NdjsonValue | RecordFailure>;
export function ndjsonValues(stream: Readable, options?: TolerantReading): AsyncIterableIterator<NdjsonValue | RecordFailure> {
  return oneByOne(options?.tolerant ? tolerantBatches(stream, new NdjsonParser()) : strictBatches(stream, new NdjsonParser(true)));
}

/** Tolerant `ndjsonValues`, a chunk's worth at a time: for consumers of millions of lines. */
export function ndjsonValueBatches(stream: Readable): AsyncIterable<(NdjsonValue | RecordFailure)[]> {
  return tolerantBatches(stream, new NdjsonParser());
}

const CR = 0x0d;

/**
 * Splits text into lines and parses each with `JSON.parse` (which skips the whitespace around a
 * value, `\r` included, by itself). Only the unfinished last line of a chunk is carried over; a line
 * growing past `MAX_RECORD_CHARS` is reported and then skipped up to its line break without being kept.
 */
export class NdjsonParser implements RecordParser<NdjsonValue> {
  private pending = '';
  /** Lines completed so far. */
  private line = 0;
  /** Inside an over-long line already reported: text is dropped up to the next line break. */
  private skipping = false;

  /** @param checksValues refuse values a JSON body may not hold (strict reading of synchronous requests). */
  constructor(private readonly checksValues = false) {}

  push(chunk: string, out: (NdjsonValue | RecordFailure)[]): void {
    // The carried-over text holds no line break: the search for the next one starts after it.
    const searchFrom = this.pending.length;
    const text = searchFrom === 0 ? chunk : this.pending + chunk;
    let start = this.skipping ? this.skipOverLongLine(text) : 0;
    if (start === -1) return;
    for (let end = text.indexOf('\n', Math.max(start, searchFrom)); end !== -1; end = text.indexOf('\n', start)) {
      this.line += 1;
      if (end > start) parseLine(text, start, end, this.line, out, this.checksValues);
      start = end + 1;
    }
    this.pending = start === 0 ? text : text.slice(start);
    if (this.pending.length > MAX_RECORD_CHARS) {
      out.push({ line: this.line + 1, error: RECORD_TOO_LONG });
      this.pending = '';
      this.skipping = true;
    }
  }

  end(out: (NdjsonValue | RecordFailure)[]): void {
    if (!this.skipping && this.pending.length > 0) parseLine(this.pending, 0, this.pending.length, this.line + 1, out, this.checksValues);
    this.pending = '';
  }

  lineAtEnd(): number {
    // The carried-over text (or the over-long line being skipped) is the line after the last completed one.
    return this.line + 1;
  }

  /** Where the text after the over-long line starts, or -1 when this chunk is still part of it. */
  private skipOverLongLine(text: string): number {
    const end = text.indexOf('\n');
    if (end === -1) return -1;
    this.skipping = false;
    this.line += 1;
    return end + 1;
  }
}

function parseLine(
  text: string,
  start: number,
  end: number,
  line: number,
  out: (NdjsonValue | RecordFailure)[],
  checksValues: boolean,
): void {
  if (end - start === 1 && text.charCodeAt(start) === CR) return;
  if (end - start > MAX_RECORD_CHARS) {
    out.push({ line, error: RECORD_TOO_LONG });
    return;
  }
  const source = text.slice(start, end);
  if (checksValues && nestsTooDeep(source)) {
    out.push({ line, error: NESTED_TOO_DEEP });
    return;
  }
  try {
    const value = JSON.parse(source) as unknown;
    const problem = checksValues ? jsonValueProblem(value) : undefined;
    if (problem === undefined) out.push({ line, value });
    else out.push({ line, error: problem.path === '' ? problem.reason : `${problem.path}: ${problem.reason}` });
  } catch (error) {
    // Blank lines and indentation are whitespace to JSON too: only a line with content is a failure.
    if (source.trim().length === 0) return;
    out.push({ line, error: `is not valid JSON (${error instanceof SyntaxError ? error.message : 'malformed'})` });
  }
}
