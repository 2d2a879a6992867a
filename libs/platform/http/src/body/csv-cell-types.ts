import { DomainError } from '@guidepost/platform-errors';
import type { CsvRow } from './csv-rows';

/**
 * Columns whose cells are always text, even when they read like a number or a boolean: identifiers
 * (`007` is an id, not 7), the event name, the timestamp and the context URL.
 */
export const CSV_TEXT_COLUMNS: ReadonlySet<string> = new Set([
  'user_id',
  'userId',
  'group_id',
  'groupId',
  'name',
  'timestamp',
  'context.url',
]);

/** JSON number syntax: no leading zeros, no `+`, no bare `.5`, no hexadecimal, no `NaN`/`Infinity`. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The value of one CSV cell under the typing rule every CSV intake shares (imports and the CSV form
 * of profile updates), so that a value means the same whichever way it arrives:
 * - in the text columns (`CSV_TEXT_COLUMNS`) the cell stays text, empty included;
 * - elsewhere an empty cell is absent (`undefined`): CSV cannot tell "no value" from "empty text", and
 *   a column only some rows fill must not blank the others' properties;
 * - `true` and `false` become booleans;
 * - a cell in JSON number syntax becomes a number (unless it is too large to be one: it stays text,
 *   as JSON could not store it);
 * - anything else stays text.
 */
export function typedCsvCell(column: string, cell: string): unknown {
  return csvCellTyper(column)(cell);
}

/** `typedCsvCell` for the cells of one column: decided once per column rather than once per cell. */
export function csvCellTyper(column: string): (cell: string) => unknown {
  return CSV_TEXT_COLUMNS.has(column) ? keptAsText : typedCsvValue;
}

function keptAsText(cell: string): string {
  return cell;
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MINUS = 0x2d;
const LETTER_F = 0x66;
const LETTER_T = 0x74;

/**
 * A cell outside the text columns, typed. The first character decides which test the cell needs at
 * all: most cells are text or short numbers, and only a cell that may be a number meets the regular
 * expression and `Number`.
 */
function typedCsvValue(cell: string): unknown {
  if (cell.length === 0) return undefined;
  const first = cell.charCodeAt(0);
  if (first === LETTER_T) return cell === 'true' ? true : cell;
  if (first === LETTER_F) return cell === 'false' ? false : cell;
  if (first !== MINUS && (first < DIGIT_0 || first > DIGIT_9)) return cell;
  if (!JSON_NUMBER.test(cell)) return cell;
  const number = Number(cell);
  return Number.isFinite(number) ? number : cell;
}

/**
 * One CSV row as an object keyed by the header's column names, its cells typed by `typedCsvCell`
 * (absent cells leave their key out). The caller checks beforehand that the row has one cell per column.
 */
export function typedCsvRecord(columns: readonly string[], cells: readonly string[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let index = 0; index < columns.length; index += 1) {
    const value = typedCsvCell(columns[index], cells[index]);
    if (value !== undefined) setOwnField(record, columns[index], value);
  }
  return record;
}

/**
 * Headers up to this many columns get a compiled record builder. V8 keeps an object with more
 * properties than about a thousand as a dictionary anyway, where a store costs the same from either
 * builder, and compiling grows with the header (a 20,000-column one takes 0.1 s and 30 MB).
 */
const MAX_COMPILED_COLUMNS = 1000;

/**
 * `typedCsvRecord` for the rows under one header, compiled once per header into one statement per
 * column (`record["plan"] = typed(cells[6])`). A store whose key is written in the code is a named
 * store with its own inline cache, where the loop's `record[columns[index]]` changes key on every
 * cell and makes each store a lookup: the compiled builder takes about half the time per row, which
 * is what an import of millions of rows pays. Column names enter the code only as JSON string
 * literals, so a name is never code.
 */
export function csvRecordTyper(columns: readonly string[]): (cells: readonly string[]) => Record<string, unknown> {
  if (columns.length > MAX_COMPILED_COLUMNS) return (cells) => typedCsvRecord(columns, cells);
  const statements = columns.map((column, index) => {
    const key = JSON.stringify(column);
    const store = (value: string) => (column === '__proto__' ? `setOwnField(record, ${key}, ${value});` : `record[${key}] = ${value};`);
    if (CSV_TEXT_COLUMNS.has(column)) return store(`cells[${index}]`);
    return `cell = cells[${index}]; if (cell.length > 0) ${store('typed(cell)')}`;
  });
  const body = `return function typedRecord(cells) { const record = {}; let cell; ${statements.join(' ')} return record; };`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled from JSON-quoted column names only (see above)
  const compile = new Function('setOwnField', 'typed', body) as (
    store: typeof setOwnField,
    typed: typeof typedCsvValue,
  ) => (cells: readonly string[]) => Record<string, unknown>;
  return compile(setOwnField, typedCsvValue);
}

/**
 * `record[key] = value`, except that a key named `__proto__` becomes a property of its own instead of
 * the prototype (a column or field of that name is data).
 */
export function setOwnField(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/**
 * The column names of a header row. A column without a name, or a name given twice, would silently
 * lose the cells under it, so either fails with 400 naming the line and the column.
 */
export function csvColumnsOf(header: CsvRow): string[] {
  const seen = new Set<string>();
  header.cells.forEach((name, index) => {
    if (name === '') throw new DomainError('invalid_request', `line ${header.line}: column ${index + 1} has no name`);
    if (seen.has(name)) throw new DomainError('invalid_request', `line ${header.line}: column '${name}' appears twice`);
    seen.add(name);
  });
  return header.cells;
}
