import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EventExportRequestSchema, MAX_CONDITION_DEPTH, MAX_CONDITION_VALUES, MAX_CONDITIONS } from './exports.schema';

// The same ajv settings the platform's validators use (draft-07, no coercion).
const validate = addFormats(new Ajv({ strict: false })).compile(EventExportRequestSchema);
const request = (conditions: unknown[]) => ({ format: 'json', conditions, start_time: '2024-05-01T00:00:00Z' });

describe('EventExportRequestSchema', () => {
  it.each([
    ['all events', []],
    ['an equality on an attribute', [['flow_id', '==', 'welcome']]],
    ['a like with wildcards', [['name', 'like', 'svc:%']]],
    ['membership', [['user_segment_id', 'not in', ['a', 'b']]]],
    ['a null test without value', [['nps_feedback', 'is not null']]],
    ['nested conjunctions', [['or', ['name', '==', 'a'], ['and', ['checklist_id', '!=', 'c'], ['user_id', 'ilike', 'u%']]]]],
  ])('accepts %s', (_case, conditions) => {
    expect(validate(request(conditions))).toBe(true);
  });

  it.each([
    ['an unknown operator', [['name', '~=', 'a']]],
    ['a membership test without an array', [['name', 'in', 'a']]],
    ['an empty membership list', [['name', 'in', []]]],
    ['a null test with a value', [['name', 'is null', 'x']]],
    ['an unknown conjunction', [['xor', ['name', '==', 'a']]]],
    ['a conjunction without conditions', [['or']]],
    ['a bad condition inside a conjunction', [['or', ['name', '==', 'a'], ['name', 'between', 1]]]],
    ['a condition that is not an array', ['name == a']],
    ['a comparison with an object value', [['name', '==', { a: 1 }]]],
    ['a like pattern that is not text', [['name', 'like', 1]]],
    ['a field named like a conjunction', [['and', '==', 'a']]],
  ])('refuses %s', (_case, conditions) => {
    expect(validate(request(conditions))).toBe(false);
  });

  it('takes start and end as ISO 8601 or milliseconds, and one address or several', () => {
    expect(validate({ ...request([]), start_time: 1714521600000, end_time: '2024-05-02T00:00:00-04:00', email: ['a@example.com'] })).toBe(
      true,
    );
    expect(validate({ ...request([]), email: 'a@example.com', time_zone: '-04:00', limit: 10, offset: 20 })).toBe(true);
    expect(validate({ ...request([]), time_zone: -240 })).toBe(true);
  });

  it('refuses a limit over ten million and a missing start, and allows unknown fields (the server ignores them)', () => {
    expect(validate({ ...request([]), limit: 10_000_001 })).toBe(false);
    expect(validate({ format: 'json', conditions: [] })).toBe(false);
    expect(validate({ ...request([]), _sync_id: 's-1' })).toBe(true);
    expect(validate({ ...request([]), format: 'xml' })).toBe(false);
    expect(validate({ ...request([]), time_zone: '4 hours' })).toBe(false);
  });

  it(`takes conjunctions nested ${MAX_CONDITION_DEPTH} deep, as the server does, and refuses one more level`, () => {
    let condition: unknown[] = ['name', '==', 'a'];
    for (let depth = 1; depth <= MAX_CONDITION_DEPTH; depth += 1)
      condition = [depth % 2 === 0 ? 'and' : 'or', condition, ['user_id', 'is null']];
    expect(validate(request([condition]))).toBe(true);
    expect(validate(request([['and', condition]]))).toBe(false);
  });

  it("states the server's limits on the number of conditions and compared values", () => {
    const leaves = Array.from({ length: MAX_CONDITIONS }, (_, index) => ['flow_id', '==', `f${index}`]);
    expect(validate(request(leaves))).toBe(true);
    expect(validate(request([...leaves, ['name', 'is null']]))).toBe(false);
    expect(validate(request([['or', ...leaves]]))).toBe(true);
    const values = Array.from({ length: MAX_CONDITION_VALUES }, (_, index) => index);
    expect(validate(request([['n', 'in', values]]))).toBe(true);
    expect(validate(request([['n', 'in', [...values, -1]]]))).toBe(false);
  });
});
