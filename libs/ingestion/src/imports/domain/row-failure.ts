import type { FieldFailure } from '@guidepost/platform-errors';
import { wellFormed } from '../../events/domain/well-formed-text';

/** Why one row of an import was not imported: what the failures endpoint and `Completed` list. */
export interface RowFailure {
  /** 1-based line of the uploaded file on which the row starts. */
  readonly line: number;
  /** The field at fault (`timestamp`, `attributes.plan`), or null when the row as a whole is. */
  readonly field: string | null;
  readonly reason: string;
}

/** A row failure before it is addressed to its line: the field at fault, null when the row as a whole is. */
export type RowProblem = FieldFailure;

export function isRowProblem(value: object): value is RowProblem {
  return 'reason' in value;
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
