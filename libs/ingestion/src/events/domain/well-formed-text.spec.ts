import { wellFormed, wellFormedJson } from './well-formed-text';

describe('wellFormed', () => {
  it('replaces lone surrogates and keeps pairs', () => {
    expect(wellFormed('a\ud800b\udc00c')).toBe('a\ufffdb\ufffdc');
    expect(wellFormed('\ud83d\ude00 ok')).toBe('\ud83d\ude00 ok');
    expect(wellFormed('end\ud83d')).toBe('end\ufffd');
  });
});

describe('wellFormedJson', () => {
  it('is JSON.stringify for well-formed values', () => {
    const value = { a: 'x\\ud800', b: [1, { c: '\ud83d\ude00' }] };
    expect(wellFormedJson(value)).toBe(JSON.stringify(value));
  });

  it('replaces lone surrogates in nested strings and keys', () => {
    expect(JSON.parse(wellFormedJson({ 'k\udc00': ['\ud800'], n: { m: 'x\ud800' } }))).toEqual({
      'k\ufffd': ['\ufffd'],
      n: { m: 'x\ufffd' },
    });
  });

  it('keeps a key named __proto__ as a key', () => {
    const value = JSON.parse('{"__proto__": "\\ud800"}') as object;
    expect(wellFormedJson(value)).toBe('{"__proto__":"\ufffd"}');
  });
});
