import { DomainError, InvalidField } from '@guidepost/platform-errors';
import { recordsOf } from './record-batch';

/** A strict fake of a compiled validator: requires a string `id`, reports like the real one (`InvalidField`). */
function validateRecord(value: unknown): { id: string } {
  const record = value as { id?: unknown };
  if (typeof record.id !== 'string') throw new InvalidField({ field: 'id', reason: 'must be string' });
  return { id: record.id };
}

function detailOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return `${error.code} ${error.detail}`;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('recordsOf (admin upsert bodies)', () => {
  it('accepts an array of records', () => {
    expect(recordsOf([{ id: 'a' }, { id: 'b' }], validateRecord)).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('accepts one record on its own', () => {
    expect(recordsOf({ id: 'a' }, validateRecord)).toEqual([{ id: 'a' }]);
  });

  it('names the index of the invalid record and the field at fault', () => {
    expect(detailOf(() => recordsOf([{ id: 'a' }, { id: 'b' }, { id: 3 }], validateRecord))).toBe('invalid_request [2].id: must be string');
  });

  it('reports an item that is not an object by its index', () => {
    expect(detailOf(() => recordsOf([{ id: 'a' }, 'b'], validateRecord))).toBe('invalid_request [1]: must be an object');
  });

  it('rejects a body that is neither an array nor an object', () => {
    expect(detailOf(() => recordsOf('flows', validateRecord))).toMatch(/^invalid_request body: /);
    expect(detailOf(() => recordsOf(null, validateRecord))).toMatch(/^invalid_request body: /);
  });

  it('rejects a repeated id, naming both records', () => {
    expect(detailOf(() => recordsOf([{ id: 'a' }, { id: 'b' }, { id: 'a' }], validateRecord))).toBe(
      "invalid_request [2].id: 'a' repeats the id of record [0]",
    );
  });

  it('takes an empty array as nothing to write', () => {
    expect(recordsOf([], validateRecord)).toEqual([]);
  });
});
