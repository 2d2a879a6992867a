import { NO_FILTERING } from '@guidepost/contracts-events';
import { assertStorableProperties, filterProperties, mergeInLineOrder } from './profile-properties';

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

describe('assertStorableProperties', () => {
  const refusal = (properties: Record<string, unknown>): string => {
    try {
      assertStorableProperties(properties);
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_request' });
      return (error as { detail: string }).detail;
    }
    return 'valid';
  };

  it('takes ordinary properties, emoji included', () => {
    expect(refusal({ plan: 'pro', seats: 3, tags: ['a', { b: null }], mood: '😀' })).toBe('valid');
  });

  it.each([
    ['a property without a name', { plan: 'pro', '': 1 }, '"": a property name must not be empty'],
    [
      'a NUL character in a nested value',
      { plan: 'pro', address: { lines: ['ok', 'bad\u0000'] } },
      /^address: holds text that contains a NUL character/,
    ],
    ['a NUL character in a name', { 'a\u0000b': 1 }, /^a\u0000b: has a name that contains a NUL character/],
    ['a lone surrogate in a value', { note: 'x\ud800' }, /^note: holds text that contains a lone UTF-16 surrogate/],
    ['a lone surrogate in a nested key', { nested: { 'k\udc00': 1 } }, /^nested: holds a key that contains a lone UTF-16 surrogate/],
    ['a number JSON cannot write', { big: Infinity }, /^big: holds a number too large to store/],
  ])('refuses %s with a 400 naming the property', (_case, properties, detail) => {
    expect(refusal(properties)).toMatch(detail);
  });

  it('walks deep nesting without overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(refusal({ deep })).toMatch(/^deep: is nested more than 64 levels deep$/);
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
