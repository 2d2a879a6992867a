import type { TSchema } from '@sinclair/typebox';
import { InvalidField } from '@guidepost/platform-errors';
import { compileValidator } from '@guidepost/platform-http';

export interface IdentifiedInput {
  readonly id: string;
}

/**
 * The records of an admin upsert body: a JSON array of records, or one record on its own. Each
 * record is validated by itself (a `compileValidator`, which throws `InvalidField`) so that an error names
 * the record's index and field, e.g.
 * `[3].tag_ids: must be array`; one bad record rejects the whole body, so nothing is half-written.
 */
/**
 * The `@ValidBody` reader of an admin upsert body whose records match `schema`; `check`, when given,
 * judges what a schema cannot (one field against another) and throws `InvalidField` naming the field.
 */
export function recordBatchOf<T extends IdentifiedInput>(
  schema: TSchema & { static: T },
  check?: (record: T) => void,
): (body: unknown) => T[] {
  const validate: (value: unknown) => T = compileValidator(schema);
  return (body) =>
    recordsOf(body, (value) => {
      const record = validate(value);
      check?.(record);
      return record;
    });
}

export function recordsOf<T extends IdentifiedInput>(body: unknown, validate: (value: unknown) => T): T[] {
  if (!Array.isArray(body)) {
    if (!isObject(body)) throw new InvalidField({ field: null, reason: 'must be a JSON array of records or one record object' });
    return [validate(body)];
  }
  const records = body.map((item: unknown, index) => validateAt(index, item, validate));
  rejectRepeatedIds(records);
  return records;
}

function validateAt<T>(index: number, item: unknown, validate: (value: unknown) => T): T {
  if (!isObject(item)) throw new InvalidField({ field: `[${index}]`, reason: 'must be an object' });
  try {
    return validate(item);
  } catch (error) {
    if (!(error instanceof InvalidField)) throw error;
    // The field within the record, addressed from the batch: `[3].tag_ids`.
    const { field, reason } = error.failure;
    throw new InvalidField({ field: field === null ? `[${index}]` : `[${index}].${field}`, reason });
  }
}

/** One statement cannot write the same key twice, and a repeated id is almost surely a mistake. */
function rejectRepeatedIds(records: readonly IdentifiedInput[]): void {
  const firstIndexOf = new Map<string, number>();
  records.forEach(({ id }, index) => {
    const first = firstIndexOf.get(id);
    if (first !== undefined) throw new InvalidField({ field: `[${index}].id`, reason: `'${id}' repeats the id of record [${first}]` });
    firstIndexOf.set(id, index);
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
