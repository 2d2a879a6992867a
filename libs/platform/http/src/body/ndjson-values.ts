import type { Readable } from 'node:stream';
import { DomainError } from '../errors/domain-error';
import { oneByOne } from './one-by-one';
import { MAX_RECORD_CHARS, recordTooLong, textOf } from './text-lines';

export interface NdjsonValue {
  /** 1-based line number in the document, blank lines included, so clients can find it. */
  readonly line: number;
  readonly value: unknown;
}

/**
 * The JSON values of a newline-delimited JSON stream, one per line, read chunk by chunk. Blank lines
 * and indentation are ignored; a line that is not JSON fails with 400 naming the line (after the
 * values before it).
 */
export function ndjsonValues(stream: Readable): AsyncIterableIterator<NdjsonValue> {
  return oneByOne(valueBatches(stream));
}

async function* valueBatches(stream: Readable): AsyncGenerator<NdjsonValue[]> {
  let line = 0;
  let pending = '';
  for await (const text of textOf(stream)) {
    pending = pending.length === 0 ? text : pending + text;
    const batch: NdjsonValue[] = [];
    let start = 0;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      line += 1;
      const value = parseLine(pending, start, end, line);
      if (value instanceof DomainError) {
        yield batch;
        throw value;
      }
      if (value !== BLANK) batch.push({ line, value });
      start = end + 1;
    }
    pending = pending.slice(start);
    if (pending.length > MAX_RECORD_CHARS) {
      yield batch;
      throw recordTooLong(line + 1);
    }
    yield batch;
  }
  const value = parseLine(pending, 0, pending.length, line + 1);
  if (value instanceof DomainError) throw value;
  if (value !== BLANK) yield [{ line: line + 1, value }];
}

const BLANK = Symbol('blank line');

/** The value of `text[start, end)`, `BLANK`, or the error naming the line (returned, to flush first). */
function parseLine(text: string, start: number, end: number, line: number): unknown {
  const source = text.slice(start, end).trim();
  if (source.length === 0) return BLANK;
  try {
    return JSON.parse(source) as unknown;
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : 'malformed';
    return new DomainError('invalid_request', `line ${line}: is not valid JSON (${reason})`);
  }
}
