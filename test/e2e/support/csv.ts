import Papa from 'papaparse';

export interface ParsedCsv {
  /** Column names of the header line, in order. */
  readonly header: string[];
  /** One object per data row, keyed by column name; empty cells are empty strings. */
  readonly rows: Record<string, string>[];
}

/** Parses a CSV response body (RFC 4180 quoting) so that tests can assert on cells. */
export function parseCsv(text: string): ParsedCsv {
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true, delimiter: ',' });
  if (parsed.errors.length > 0) throw new Error(`invalid CSV: ${JSON.stringify(parsed.errors)}\n${text.slice(0, 500)}`);
  return { header: parsed.meta.fields ?? [], rows: parsed.data };
}
