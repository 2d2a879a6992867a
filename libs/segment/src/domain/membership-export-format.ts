import { textProblem } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { csvRecord } from '@guidepost/platform-http';

export type ExportFormat = 'csv' | 'json';

type Profile = Readonly<Record<string, unknown>>;

/** How one membership export is written: a header (CSV only) then one line per member. */
export interface ExportRenderer {
  readonly contentType: string;
  readonly extension: string;
  readonly header: string;
  row(userId: string, profile: Profile | undefined): string;
}

/**
 * The columns of an export: `user_id` always first, then each requested property once, in the order
 * asked. Asking for `user_id` again (or twice for anything) would only repeat a column.
 */
export function exportColumns(propertyNames: readonly string[]): string[] {
  return ['user_id', ...new Set(propertyNames.filter((name) => name !== 'user_id'))];
}

/**
 * Refuses, with 400 naming it (`property_names[3]`), a requested property name that the request's
 * message could not carry (PostgreSQL `jsonb` refuses NUL and lone surrogates) and no profile can hold:
 * accepted, it would fail after the job was created instead of before.
 */
export function assertExportablePropertyNames(propertyNames: readonly string[]): void {
  propertyNames.forEach((name, index) => {
    const problem = textProblem(name);
    if (problem !== undefined) throw new DomainError('invalid_request', `property_names[${index}]: ${problem}`);
  });
}

export function exportRenderer(format: ExportFormat, propertyNames: readonly string[]): ExportRenderer {
  const properties = exportColumns(propertyNames).slice(1);
  const valuesOf = (profile: Profile | undefined): unknown[] => properties.map((name) => propertyOf(profile, name));
  switch (format) {
    case 'json':
      return {
        contentType: 'application/x-ndjson',
        extension: 'ndjson',
        header: '',
        row: (userId, profile) => {
          const values = valuesOf(profile);
          // fromEntries defines own properties, so a property named `__proto__` is written like any other.
          return `${JSON.stringify(Object.fromEntries([['user_id', userId], ...properties.map((name, i) => [name, values[i]])]))}\n`;
        },
      };
    case 'csv':
      return {
        contentType: 'text/csv; charset=utf-8',
        extension: 'csv',
        header: csvLine(['user_id', ...properties]),
        row: (userId, profile) => csvLine([userId, ...valuesOf(profile)]),
      };
  }
}

/** A member's property, or null when the member has no profile or no such property of its own. */
function propertyOf(profile: Profile | undefined, name: string): unknown {
  if (profile === undefined || !Object.hasOwn(profile, name)) return null;
  return profile[name] ?? null;
}

/** Cells as every CSV of the API writes them (`csvCell`: JSON text for arrays and objects, formulas neutralised). */
function csvLine(values: readonly unknown[]): string {
  return `${csvRecord(values)}\n`;
}
