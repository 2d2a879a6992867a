import { csvRecord } from './csv-cell';
import type { CsvRenderingOptions } from './csv-rendering.decorator';

type Row = Record<string, unknown>;

/**
 * Renders a JSON response body as CSV: a header line, then one row per object (a single object is
 * one row). Columns are the field names in first-seen order across all rows; a flattened field
 * becomes `<field>.<key>` columns (the union of its keys, sorted) where the field first appears.
 * Cells are written by `csvCell` (null and missing values empty, arrays and objects JSON text, a
 * formula neutralised), header cells too; quoting and line breaks follow RFC 4180.
 */
export function renderCsv(body: object, options: CsvRenderingOptions = {}): string {
  const rows = (Array.isArray(body) ? body : [body]).map(asRow);
  const omit = new Set(options.omit);
  const flatten = new Set(options.flatten);
  const columns = columnsOf(rows, omit, flatten);
  if (columns.length === 0) return '';
  const header = csvRecord(columns.map((column) => column.name));
  const lines = rows.map((row) => csvRecord(columns.map((column) => valueAt(row, column, flatten))));
  return [header, ...lines].map((line) => `${line}\r\n`).join('');
}

/** A column: a plain field, or one key of a flattened object field. */
interface Column {
  readonly name: string;
  readonly field: string;
  readonly key?: string;
}

function columnsOf(rows: readonly Row[], omit: ReadonlySet<string>, flatten: ReadonlySet<string>): Column[] {
  const fields = new Set<string>();
  const flattenedKeys = new Map<string, Set<string>>();
  for (const row of rows) {
    for (const field of Object.keys(row)) {
      if (omit.has(field)) continue;
      fields.add(field);
      if (!flatten.has(field)) continue;
      const keys = flattenedKeys.get(field) ?? new Set<string>();
      const value = row[field];
      if (isPlainObject(value)) for (const key of Object.keys(value)) keys.add(key);
      flattenedKeys.set(field, keys);
    }
  }
  return [...fields].flatMap((field): Column[] => {
    const keys = flattenedKeys.get(field);
    if (!keys) return [{ name: field, field }];
    return [...keys].sort().map((key) => ({ name: `${field}.${key}`, field, key }));
  });
}

function valueAt(row: Row, column: Column, flatten: ReadonlySet<string>): unknown {
  const value = row[column.field];
  if (!flatten.has(column.field)) return value;
  return isPlainObject(value) && column.key !== undefined ? value[column.key] : undefined;
}

/** A list of scalars still renders: each becomes a row with a single `value` column. */
function asRow(item: unknown): Row {
  return isPlainObject(item) ? item : { value: item };
}

function isPlainObject(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
