import type { Readable } from 'node:stream';
import Papa from 'papaparse';
import { DomainError } from '../errors/domain-error';
import { oneByOne } from './one-by-one';
import { MAX_RECORD_CHARS, recordTooLong, textOf } from './text-lines';

export interface CsvRow {
  /** 1-based line on which the row starts (a quoted cell may span several lines). */
  readonly line: number;
  /** The row's cells, trimmed. */
  readonly cells: string[];
}

/** What papaparse's row parser returns (its typings leave it `any`). */
interface ParsedRows {
  data: string[][];
  errors: { type: string; message: string; row: number }[];
  meta: { cursor: number };
}

/**
 * The rows of a CSV stream, read chunk by chunk with papaparse's row parser, which reports where the
 * last complete row ends so that a row cut by a chunk boundary (quoted line breaks included) is
 * parsed whole with the next chunk. (Papaparse's own Node stream mode drops parse errors and splits
 * UTF-8 characters at chunk boundaries.) Blank lines are skipped and cells trimmed; an unterminated or
 * malformed quote fails with 400 naming the line.
 */
export function csvRows(stream: Readable): AsyncIterableIterator<CsvRow> {
  return oneByOne(rowBatches(stream));
}

async function* rowBatches(stream: Readable): AsyncGenerator<CsvRow[]> {
  // `\r` before a line break is trimmed with the cell, or skipped after a closing quote, by papaparse.
  const parser = new Papa.Parser({ delimiter: ',', newline: '\n' });
  let pending = '';
  let line = 1;
  for await (const text of textOf(stream)) {
    pending = pending.length === 0 ? text : pending + text;
    const parsed = parser.parse(pending, 0, true) as ParsedRows;
    const batch = rowsOf(parsed, pending.slice(0, parsed.meta.cursor), line, true);
    line = batch.nextLine;
    pending = pending.slice(parsed.meta.cursor);
    if (batch.error || pending.length > MAX_RECORD_CHARS) {
      yield batch.rows;
      throw batch.error ?? recordTooLong(line);
    }
    yield batch.rows;
  }
  if (pending.length === 0) return;
  const last = rowsOf(parser.parse(pending, 0, false) as ParsedRows, pending, line, false);
  yield last.rows;
  if (last.error) throw last.error;
}

interface RowBatch {
  readonly rows: CsvRow[];
  readonly nextLine: number;
  readonly error?: DomainError;
}

function rowsOf(parsed: ParsedRows, text: string, firstLine: number, everyRowEndsWithBreak: boolean): RowBatch {
  const records = parsed.data;
  const broken = parsed.errors.find((error) => error.type === 'Quotes');
  // Usually each row is one line; only when cells hold line breaks must rows be counted one by one.
  const breaks = lineBreaksIn(text);
  const oneLineEach = breaks === records.length - (everyRowEndsWithBreak ? 0 : 1);
  const rows: CsvRow[] = [];
  let line = firstLine;
  for (let index = 0; index < records.length; index += 1) {
    const cells = records[index];
    if (broken?.row === index) return { rows, nextLine: line, error: brokenQuote(line, broken.message) };
    const span = oneLineEach ? 1 : 1 + cells.reduce((count, cell) => count + lineBreaksIn(cell), 0);
    if (cells.length > 1 || cells[0].trim().length > 0) {
      for (let cell = 0; cell < cells.length; cell += 1) cells[cell] = cells[cell].trim();
      rows.push({ line, cells });
    }
    line += span;
  }
  // A quote still open at the very end belongs to a row papaparse did not return.
  if (broken && !everyRowEndsWithBreak) return { rows, nextLine: line, error: brokenQuote(line, broken.message) };
  return { rows, nextLine: line };
}

function brokenQuote(line: number, message: string): DomainError {
  return new DomainError('invalid_request', `line ${line}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`);
}

function lineBreaksIn(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}
