import { DomainError } from '@guidepost/platform-errors';
import { wellFormed } from '../../events/domain/well-formed-text';

/** Why one row of an import was not imported: what the failures endpoint and `Completed` list. */
export interface RowFailure {
  /** 1-based line of the uploaded file on which the row starts. */
  readonly line: number;
  /** The field at fault (`timestamp`, `attributes.plan`), or null when the row as a whole is. */
  readonly field: string | null;
  readonly reason: string;
}

/** A row failure before it is addressed to its line. */
export interface RowProblem {
  readonly field: string | null;
  readonly reason: string;
}

export function isRowProblem(value: object): value is RowProblem {
  return 'reason' in value;
}

/**
 * The problem a validator (`compileValidator`) reported, split into field and reason: its detail
 * reads `<field path>: <reason>`, with `body` for the row as a whole.
 */
export function problemOfValidation(error: unknown): RowProblem {
  if (!(error instanceof DomainError)) throw error;
  const separator = error.detail.indexOf(': ');
  if (separator === -1) return { field: null, reason: error.detail };
  const field = error.detail.slice(0, separator);
  return { field: field === 'body' ? null : field, reason: error.detail.slice(separator + 2) };
}

/**
 * A failure as it can be stored and shown: field names and reasons may quote the file (a key, a
 * snippet of a line), and PostgreSQL text cannot hold NUL or a lone surrogate.
 */
export function storableFailure(line: number, problem: RowProblem): RowFailure {
  return { line, field: problem.field === null ? null : printable(problem.field), reason: printable(problem.reason) };
}

function printable(text: string): string {
  return wellFormed(text).replaceAll('\u0000', '\ufffd');
}
