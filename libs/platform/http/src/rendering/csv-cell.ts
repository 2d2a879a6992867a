/**
 * The one rule for a cell of every CSV Guidepost writes: the answers under `Accept: text/csv`
 * (`renderCsv`), the membership export files, the event export's header, and the event export's SQL,
 * which ClickHouse renders from the same two patterns (`event-sql.ts`).
 *
 * A spreadsheet opening the file runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return as a formula (OWASP's "CSV injection"), and every such text may come from an end user (an
 * attribute, a profile property, a name). Such a cell is neutralised as OWASP says: a single quote is
 * put before it, which spreadsheets read as "text follows", and the cell is quoted. A cell that is a
 * number in JSON's syntax (`-5`, `-1.5e3`) is left as it is, whether it came from a number or from
 * text: a spreadsheet reads it as that number, and nothing can follow its sign.
 */

/** OWASP's leading characters of a cell a spreadsheet would read as a formula. */
export const FORMULA_START = /^[=+\-@\t\r]/;

/** A number in JSON's syntax, the whole cell. */
export const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

/** Characters that make RFC 4180 quote a cell. */
const NEEDS_QUOTES = /[",\r\n]/;

/** A value as one CSV cell: null and undefined are empty, arrays and objects JSON text, formulas neutralised. */
export function csvCell(value: unknown): string {
  const text = cellText(value);
  if (FORMULA_START.test(text) && !NUMBER_TEXT.test(text)) return quoted(`'${text}`);
  return NEEDS_QUOTES.test(text) ? quoted(text) : text;
}

/** One CSV record of `values`, without its line ending. */
export function csvRecord(values: readonly unknown[]): string {
  return values.map(csvCell).join(',');
}

function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function cellText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      if (value === null) return '';
      return value instanceof Date ? value.toISOString() : JSON.stringify(value);
    case 'undefined':
    case 'function': // functions and symbols cannot come from JSON
    case 'symbol':
      return '';
  }
}
