import { MAX_NESTING, measureStorable } from './storable-values';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

describe('measureStorable', () => {
  it('measures keys and text of ordinary values', () => {
    expect(measureStorable({ plan: 'pro', tags: ['a', 'bc'], nested: { k: true } }, '')).toBe(4 + 3 + 4 + 1 + 2 + 6 + 1 + 8);
  });

  it('keeps emoji and other surrogate pairs', () => {
    expect(typeof measureStorable({ mood: '😀 ünïcode' }, '')).toBe('number');
  });

  it.each([
    [{ note: 'a\u0000b' }, 'attributes.note', 'holds text that contains a NUL character (\\u0000), which cannot be stored'],
    [{ note: ['ok', { deeper: '\udc00' }] }, 'attributes.note', expect.stringContaining('lone UTF-16 surrogate')],
    [{ 'bad\u0000key': 1 }, 'attributes.bad\u0000key', expect.stringMatching(/^has a name that contains a NUL/)],
    [{ note: { 'k\ud800': 1 } }, 'attributes.note', expect.stringMatching(/^holds a key that contains a lone/)],
    [{ big: Infinity }, 'attributes.big', 'holds a number too large to store (JSON would write it as null)'],
  ])('names the field of an unstorable value in %j', (values, field, reason) => {
    expect(measureStorable(values, 'attributes.')).toEqual({ field, reason });
  });

  it(`takes arrays and objects nested ${MAX_NESTING} levels deep and refuses deeper ones, however deep, without overflowing the stack`, () => {
    expect(typeof measureStorable({ ok: nested(MAX_NESTING) }, '')).toBe('number');
    expect(measureStorable({ deep: nested(MAX_NESTING + 1) }, '')).toEqual({
      field: 'deep',
      reason: `is nested more than ${MAX_NESTING} levels deep`,
    });
    expect(measureStorable({ deep: JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown }, '')).toMatchObject({
      field: 'deep',
    });
  });
});
