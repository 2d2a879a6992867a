import { NO_FILTERING } from '@guidepost/contracts-events';
import { assertStorableId, assertStorableProperties, filterProperties, mergeInLineOrder, unstorableTextPath } from './profile-properties';

const rules = (mode: 'allow' | 'deny', userProperties: string[], groupProperties: string[] = []) => ({
  mode,
  eventNames: [],
  userProperties,
  groupProperties,
});

describe('filterProperties', () => {
  it('keeps everything without rules', () => {
    expect(filterProperties(NO_FILTERING, 'user', { plan: 'pro', seats: 3 })).toEqual({ kept: { plan: 'pro', seats: 3 }, dropped: [] });
  });

  it('in deny mode drops the listed user properties and names them', () => {
    expect(filterProperties(rules('deny', ['email']), 'user', { plan: 'pro', email: 'a@b.c' })).toEqual({
      kept: { plan: 'pro' },
      dropped: ['email'],
    });
  });

  it('in allow mode keeps only the listed names', () => {
    expect(filterProperties(rules('allow', ['plan']), 'user', { plan: 'pro', email: 'a@b.c', seats: 2 })).toEqual({
      kept: { plan: 'pro' },
      dropped: ['email', 'seats'],
    });
  });

  it('applies the group list to groups and the user list to users', () => {
    const denyIndustry = rules('deny', ['plan'], ['industry']);
    expect(filterProperties(denyIndustry, 'group', { plan: 'pro', industry: 'retail' }).kept).toEqual({ plan: 'pro' });
    expect(filterProperties(denyIndustry, 'user', { plan: 'pro', industry: 'retail' }).kept).toEqual({ industry: 'retail' });
  });

  it('keeps a property named __proto__ as data', () => {
    const { kept } = filterProperties(NO_FILTERING, 'user', JSON.parse('{"__proto__": {"admin": true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(Object.keys(kept)).toEqual(['__proto__']);
  });
});

describe('unstorableTextPath', () => {
  it('finds nothing in ordinary properties', () => {
    expect(unstorableTextPath({ plan: 'pro', seats: 3, tags: ['a', { b: null }] })).toBeUndefined();
  });

  it('names a NUL character in a nested value by its path', () => {
    expect(unstorableTextPath({ plan: 'pro', address: { lines: ['ok', 'bad\u0000'] } })).toBe('address.lines.1');
  });

  it('names a NUL character in a key', () => {
    expect(unstorableTextPath({ nested: { 'a\u0000b': 1 } })).toBe('nested.a\u0000b');
  });

  it('walks deep nesting without overflowing the stack', () => {
    let deep: unknown = 'bottom\u0000';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(unstorableTextPath({ deep })).toMatch(/^deep(\.0)+$/);
  });

  it('is turned into a 400 naming the property', () => {
    expect(() => assertStorableProperties({ note: 'a\u0000' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', detail: 'note: contains a NUL character, which cannot be stored' }),
    );
    expect(() => assertStorableId('user_id', 'u\u0000')).toThrow(expect.objectContaining({ detail: expect.stringMatching(/^user_id: /) }));
    expect(() => assertStorableId('user_id', 'u-1')).not.toThrow();
  });
});

describe('mergeInLineOrder', () => {
  it('merges rows of one id key by key, the later line winning, other ids apart', () => {
    const merged = mergeInLineOrder([
      { id: 'a', line: 1, properties: { plan: 'free', seats: 1 } },
      { id: 'b', line: 2, properties: { plan: 'team' } },
      { id: 'a', line: 3, properties: { plan: 'pro' } },
    ]);
    expect([...merged]).toEqual([
      ['a', { plan: 'pro', seats: 1 }],
      ['b', { plan: 'team' }],
    ]);
  });

  it('follows line numbers, not the order the rows arrive in', () => {
    const merged = mergeInLineOrder([
      { id: 'a', line: 9, properties: { plan: 'pro' } },
      { id: 'a', line: 4, properties: { plan: 'free' } },
    ]);
    expect(merged.get('a')).toEqual({ plan: 'pro' });
  });
});
