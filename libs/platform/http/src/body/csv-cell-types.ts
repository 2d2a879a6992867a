import { DomainError } from '@guidepost/platform-errors';
import type { CsvRow } from './csv-rows';

/**
 * Columns whose cells are always text, even when they read like a number or a boolean: identifiers
 * (`007` is an id, not 7), the event name, the timestamp and the context URL.
 */
export const CSV_TEXT_COLUMNS: ReadonlySet<string> = new Set(['user_id', 'userId', 'group_id', 'groupId', 'name', 'timestamp', 'context.url']);

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
  if (CSV_TEXT_COLUMNS.has(column)) return cell;
  if (cell === '') return undefined;
  if (cell === 'true') return true;
  if (cell === 'false') return false;
  if (JSON_NUMBER.test(cell)) {
    const number = Number(cell);
    if (Number.isFinite(number)) return number;
  }
  return cell;
}

/**
 * One CSV row as an object keyed by the header's column names, its cells typed by `typedCsvCell`
 * (absent cells leave their key out). The caller checks beforehand that the row has one cell per column.
 */
export function typedCsvRecord(columns: readonly string[], cells: readonly string[]): Record<string, unknown> {
  // `fromEntries` defines own properties, so a column named `__proto__` is data, not a prototype.
  const entries = columns.map((column, index) => [column, typedCsvCell(column, cells[index])] as const);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
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
