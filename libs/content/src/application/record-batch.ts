import { DomainError } from '@guidepost/platform-errors';

export interface IdentifiedInput {
  readonly id: string;
}

/**
 * The records of an admin upsert body: a JSON array of records, or one record on its own. Each
 * record is validated by itself so that an error names the record's index and field, e.g.
 * `[3].tag_ids: must be array`; one bad record rejects the whole body, so nothing is half-written.
 */
export function recordsOf<T extends IdentifiedInput>(body: unknown, validate: (value: unknown) => T): T[] {
  if (!Array.isArray(body)) {
    if (!isObject(body)) throw new DomainError('invalid_request', 'body: must be a JSON array of records or one record object');
    return [validate(body)];
  }
  const records = body.map((item: unknown, index) => validateAt(index, item, validate));
  rejectRepeatedIds(records);
  return records;
}

function validateAt<T>(index: number, item: unknown, validate: (value: unknown) => T): T {
  if (!isObject(item)) throw new DomainError('invalid_request', `[${index}]: must be an object`);
  try {
    return validate(item);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_request') {
      throw new DomainError('invalid_request', `[${index}].${error.detail}`);
    }
    throw error;
  }
}

/** One statement cannot write the same key twice, and a repeated id is almost surely a mistake. */
function rejectRepeatedIds(records: readonly IdentifiedInput[]): void {
  const firstIndexOf = new Map<string, number>();
  records.forEach(({ id }, index) => {
    const first = firstIndexOf.get(id);
    if (first !== undefined) throw new DomainError('invalid_request', `[${index}].id: '${id}' repeats the id of record [${first}]`);
    firstIndexOf.set(id, index);
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
