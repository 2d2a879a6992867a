import { DomainError } from './domain-error';

/**
 * What is wrong with one field of a value a client sent: `{ field: 'attributes.plan', reason: 'must be
 * string' }`. `field` is the path of the field (property names joined with `.`, array indexes as
 * numbers), or null when the value as a whole is at fault. Kept as a value so callers read the field
 * and the reason apart (an import's row failures list them in columns of their own) instead of
 * splitting a sentence again: a property name may itself contain `: ` or `.`.
 */
export interface FieldFailure {
  readonly field: string | null;
  readonly reason: string;
}

/** The one wording of a field failure shown to clients: `<field>: <reason>`, `body` for the value as a whole. */
export function detailOf(failure: FieldFailure): string {
  return `${failure.field ?? 'body'}: ${failure.reason}`;
}

/** A request refused because one of its fields is invalid; its `detail` is `detailOf(failure)`. */
export class InvalidField extends DomainError {
  constructor(readonly failure: FieldFailure) {
    super('invalid_request', detailOf(failure));
    this.name = 'InvalidField';
  }
}
