import type { Readable } from 'node:stream';
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

export interface CsvRow {
  /** 1-based line on which the row starts (a quoted cell may span several lines). */
  readonly line: number;
  /** The row's cells, trimmed. */
  readonly cells: string[];
}

export const UNTERMINATED_QUOTE = 'quoted field unterminated';
export const TEXT_AFTER_QUOTE = 'quoted field has text after its closing quote (a quote inside a quoted field is written "")';

/**
 * The rows of a CSV stream (RFC 4180: `,` between cells, `"` around cells holding commas, quotes or
 * line breaks, `""` for a quote inside them), read chunk by chunk. Blank lines are skipped, cells
 * trimmed, `\r\n` and `\n` both end a row; a `"` inside an unquoted cell is just a character. A broken
 * quote or a row longer than `MAX_RECORD_CHARS` fails with 400 naming the line (after the rows before
 * it).
 *
 * Tolerant reading treats the first row as the header: it hands out a `RecordFailure` for a row with a
 * broken quote, a row whose cell count differs from the header's, or an over-long row, and goes on
 * with the next line. How far a broken quote reaches: the row is cut at the end of the line where the
 * broken quoted cell opened, and the lines after it are read again as rows of their own. That holds
 * for text after a closing quote (`"5" screen",x`), for a quote still open at the end of the file and
 * for one still open after `MAX_RECORD_CHARS` (so a stray quote costs its own row only, at the price
 * of reading at most `MAX_RECORD_CHARS` twice, and the memory stays bounded). When the quote did open
 * a real multi-line cell, its later lines are then judged as rows and fail on their own (usually with
 * the wrong number of cells), so every line of the file is either imported or reported. A stray quote
 * that a later quote closes cleanly by chance (`1,"oops` ... `2,x"` at the end of a line) makes one
 * valid multi-line cell: no CSV reader can tell that from intent.
 */
export function csvRows(stream: Readable): AsyncIterableIterator<CsvRow>;
export function csvRows(stream: Readable, options: TolerantReading): AsyncIterableIterator<CsvRow | RecordFailure>;
export function csvRows(stream: Readable, options?: TolerantReading): AsyncIterableIterator<CsvRow | RecordFailure> {
  return oneByOne(options?.tolerant ? tolerantBatches(stream, new CsvParser(true)) : strictBatches(stream, new CsvParser(false)));
}

/** Tolerant `csvRows`, a chunk's worth at a time: for consumers of millions of rows. */
export function csvRowBatches(stream: Readable): AsyncIterable<(CsvRow | RecordFailure)[]> {
  return tolerantBatches(stream, new CsvParser(true));
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const NO_BREAK_SPACE = 0xa0;

/** What scanning one row that contains a quote found. */
type QuotedScan =
  | { readonly kind: 'row'; readonly cells: string[]; readonly next: number }
  /** The row goes on in text not read yet; `openQuote` is where its unclosed quote opened (-1: none). */
  | { readonly kind: 'incomplete'; readonly openQuote: number }
  /** The row is broken; it ends at the first line break after `from`, where its broken quoted cell opened. */
  | { readonly kind: 'broken'; readonly reason: string; readonly from: number };

/**
 * A CSV row splitter tuned for large files: a row without quotes (almost all of them) is cut with
 * `indexOf` and `slice` alone; only a row with a quote is scanned quote by quote. The positions of the
 * next quote and comma are remembered across rows, so no character is searched twice.
 */
export class CsvParser implements RecordParser<CsvRow> {
  private pending = '';
  /** Line on which `pending` starts. */
  private line = 1;
  /** Inside an over-long line already reported: text is dropped up to the next line break. */
  private skipping = false;
  /** Cells per row once the header is read (tolerant reading), -1 before. */
  private width = -1;

  constructor(private readonly checksWidth: boolean) {}

  push(chunk: string, out: (CsvRow | RecordFailure)[]): void {
    if (this.pending.length > 0) {
      // The row left unfinished is completed by the chunk's first line alone, so that only that line is
      // copied to join it, not the whole chunk (text read in two pieces reads as in one).
      const lf = chunk.indexOf('\n');
      if (lf !== -1 && lf < chunk.length - 1) {
        this.parse(this.pending + chunk.slice(0, lf + 1), 0, false, out);
        // The chunk itself is read from after that line rather than cut there: a cut string is read
        // through an indirection on every character.
        if (this.pending.length === 0) this.parse(chunk, lf + 1, false, out);
        else this.parse(this.pending + chunk.slice(lf + 1), 0, false, out);
        return;
      }
    }
    this.parse(this.pending.length === 0 ? chunk : this.pending + chunk, 0, false, out);
  }

  end(out: (CsvRow | RecordFailure)[]): void {
    if (this.pending.length > 0 && !this.skipping) this.parse(this.pending, 0, true, out);
    this.pending = '';
  }

  lineAtEnd(): number {
    // `pending` starts on `line` and may hold line breaks of a quoted cell still open.
    return this.line + lineBreaksIn(this.pending, 0, this.pending.length);
  }

  /** Parses `text` from `start` on; what it cannot finish yet is kept in `pending`. */
  private parse(text: string, start: number, final: boolean, out: (CsvRow | RecordFailure)[]): void {
    let pos = start;
    let line = this.line;
    if (this.skipping) {
      const lf = text.indexOf('\n', pos);
      if (lf === -1) {
        this.pending = '';
        return;
      }
      this.skipping = false;
      pos = lf + 1;
      line += 1;
    }
    const length = text.length;
    let quote = text.indexOf('"', pos);
    let comma = -1;
    while (pos < length) {
      let end = text.indexOf('\n', pos);
      if (end === -1) end = final ? length : -1;
      if (end !== -1 && (quote === -1 || quote > end)) {
        // The common case: a whole line without quotes.
        if (end - pos > MAX_RECORD_CHARS) {
          out.push({ line, error: RECORD_TOO_LONG });
        } else {
          const cells: string[] = [];
          let from = pos;
          if (comma < from) comma = nextIndex(text, ',', from);
          while (comma < end) {
            cells.push(plainCell(text, from, comma));
            from = comma + 1;
            // `nextComma`, written out: V8 does not inline a call this deep in the loop, and the call
            // would cost more than the search it spares.
            comma = text.charCodeAt(from) === COMMA ? from : nextIndex(text, ',', from);
          }
          cells.push(plainCell(text, from, end));
          this.accept(cells, line, out);
        }
        pos = end + 1;
        line += 1;
        continue;
      }
      const scan = end === -1 && quote === -1 ? INCOMPLETE : scanQuotedRow(text, pos, quote, final);
      if (scan.kind === 'row') {
        if (scan.next - pos > MAX_RECORD_CHARS) out.push({ line, error: RECORD_TOO_LONG });
        else this.accept(scan.cells, line, out);
        line += lineBreaksIn(text, pos, scan.next);
        pos = scan.next;
      } else {
        if (scan.kind === 'incomplete' && length - pos <= MAX_RECORD_CHARS) break;
        // Broken, or too long to wait for: the row is lost up to the line break after `from`.
        out.push({ line, error: scan.kind === 'broken' ? scan.reason : RECORD_TOO_LONG });
        const from = scan.kind === 'broken' ? scan.from : scan.openQuote === -1 ? length : scan.openQuote;
        const lf = text.indexOf('\n', from);
        const next = lf === -1 ? length : lf + 1;
        line += lineBreaksIn(text, pos, next);
        pos = next;
        if (lf === -1 && !final) this.skipping = true;
      }
      quote = text.indexOf('"', pos);
    }
    this.pending = pos >= length ? '' : pos === 0 ? text : text.slice(pos);
    this.line = line;
  }

  private accept(cells: string[], line: number, out: (CsvRow | RecordFailure)[]): void {
    if (cells.length === 1 && cells[0].length === 0) return;
    if (this.checksWidth) {
      if (this.width === -1) this.width = cells.length;
      else if (cells.length !== this.width) {
        out.push({ line, error: `has ${cells.length} cells where the header has ${this.width}` });
        return;
      }
    }
    out.push({ line, cells });
  }
}

const INCOMPLETE: QuotedScan = { kind: 'incomplete', openQuote: -1 };

/**
 * `nextIndex(text, ',', from)`, answered without a search when the cell at `from` is empty: most
 * rows of an import leave many columns empty, and a search costs a call.
 */
function nextComma(text: string, from: number): number {
  return text.charCodeAt(from) === COMMA ? from : nextIndex(text, ',', from);
}

/** `text.indexOf(search, from)`, or the text's length when there is none (so it is never searched again). */
function nextIndex(text: string, search: string, from: number): number {
  const found = text.indexOf(search, from);
  return found === -1 ? text.length : found;
}

/**
 * The trimmed cell between `from` and `to` of a line without quotes. Only a cell that starts or ends
 * with a character `trim` might remove is trimmed, and an empty one is not cut at all: most cells are
 * neither, and the checks cost less than the copies they spare.
 */
function plainCell(text: string, from: number, to: number): string {
  if (from === to) return '';
  if (mayBeBlank(text.charCodeAt(from)) || mayBeBlank(text.charCodeAt(to - 1))) return text.slice(from, to).trim();
  return text.slice(from, to);
}

/** Whether `trim` may remove this character: blanks, controls (`\r` among them) and non-ASCII characters, some of which are spaces. */
function mayBeBlank(code: number): boolean {
  return code <= SPACE || code >= NO_BREAK_SPACE;
}

/**
 * Scans the row starting at `start`, whose first quote is at `quote`, cell by cell, honouring quotes. The cells before the one holding that quote are cut as on a line without quotes
 * (no line break lies before it); after it, the next comma and line break are searched for, not
 * stepped to, and each only once.
 */
function scanQuotedRow(text: string, start: number, quote: number, final: boolean): QuotedScan {
  const length = text.length;
  const cells: string[] = [];
  let at = start;
  let comma = nextComma(text, at);
  while (comma < quote) {
    cells.push(plainCell(text, at, comma));
    at = comma + 1;
    comma = nextComma(text, at);
  }
  let lineEnd = -1;
  for (;;) {
    let open = at;
    while (open < length && isBlank(text.charCodeAt(open))) open += 1;
    if (open < length && text.charCodeAt(open) === QUOTE) {
      let value = '';
      let from = open + 1;
      for (;;) {
        const close = text.indexOf('"', from);
        if (close === -1 || (close === length - 1 && !final)) {
          return final ? { kind: 'broken', reason: UNTERMINATED_QUOTE, from: open } : { kind: 'incomplete', openQuote: open };
        }
        if (text.charCodeAt(close + 1) === QUOTE) {
          value += text.slice(from, close + 1);
          from = close + 2;
          continue;
        }
        value += text.slice(from, close);
        at = close + 1;
        break;
      }
      while (at < length && isBlankOrCr(text.charCodeAt(at))) at += 1;
      if (at === length && !final) return INCOMPLETE;
      cells.push(value.trim());
      if (at === length) return { kind: 'row', cells, next: length };
      const next = text.charCodeAt(at);
      if (next === LF) return { kind: 'row', cells, next: at + 1 };
      if (next !== COMMA) {
        if (!final && text.indexOf('\n', open) === -1) return INCOMPLETE;
        return { kind: 'broken', reason: TEXT_AFTER_QUOTE, from: open };
      }
      at += 1;
      continue;
    }
    // An unquoted cell runs to the next comma or line break (a quote in it is just a character).
    if (comma < at) comma = nextComma(text, at);
    if (lineEnd < at) lineEnd = nextIndex(text, '\n', at);
    const end = comma < lineEnd ? comma : lineEnd;
    if (end === length && !final) return INCOMPLETE;
    cells.push(plainCell(text, at, end));
    if (end === length) return { kind: 'row', cells, next: length };
    if (end === lineEnd) return { kind: 'row', cells, next: end + 1 };
    at = end + 1;
  }
}

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB;
}

function isBlankOrCr(code: number): boolean {
  return code === SPACE || code === TAB || code === CR;
}

function lineBreaksIn(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}
