import { Utf8Chunks } from './utf8-chunks';

/** The text of `chunks` read one after the other, or undefined from the first chunk that is not UTF-8 on. */
function decoded(...chunks: Buffer[]): string | undefined {
  const utf8 = new Utf8Chunks();
  let text = '';
  for (const chunk of chunks) {
    const piece = utf8.decode(chunk);
    if (piece === undefined) return undefined;
    text += piece;
  }
  return utf8.endsInsideCharacter() ? undefined : text;
}

/** Every way of cutting `bytes` in two. */
function cutsOf(bytes: Buffer): [Buffer, Buffer][] {
  return Array.from({ length: bytes.length + 1 }, (_, cut) => [bytes.subarray(0, cut), bytes.subarray(cut)]);
}

describe('Utf8Chunks', () => {
  const text = 'plain, Zoë € 😀 end';

  it('decodes text whatever the chunk boundaries, in the middle of characters of 2, 3 and 4 bytes included', () => {
    const bytes = Buffer.from(text);
    for (const [head, tail] of cutsOf(bytes)) expect(decoded(head, tail)).toBe(text);
    expect(decoded(...[...bytes].map((byte) => Buffer.from([byte])))).toBe(text);
  });

  it('drops a byte order mark at the start only, even when it arrives a byte at a time', () => {
    const bytes = Buffer.from(`\uFEFFa\uFEFFb`);
    expect(decoded(bytes)).toBe('a\uFEFFb');
    expect(decoded(...[...bytes].map((byte) => Buffer.from([byte])))).toBe('a\uFEFFb');
  });

  it.each([
    ['a byte that starts no character', [0x61, 0xff, 0x62]],
    ['a lone continuation byte', [0x61, 0x80]],
    ['a character cut short by an ASCII byte', [0xe2, 0x82, 0x61]],
    ['an overlong form', [0xc0, 0xaf]],
    ['an overlong three-byte form', [0xe0, 0x80, 0xaf]],
    ['a surrogate', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('refuses %s wherever the chunks break', (_, bytes) => {
    for (const [head, tail] of cutsOf(Buffer.from(bytes))) expect(decoded(head, tail)).toBeUndefined();
  });

  it('refuses a stream that ends in the middle of a character', () => {
    const utf8 = new Utf8Chunks();
    expect(utf8.decode(Buffer.from([0x61, 0xe2, 0x82]))).toBe('a');
    expect(utf8.endsInsideCharacter()).toBe(true);
  });

  it('finds a bad byte in the chunk that holds it, even when it follows the start of a character the chunk cuts', () => {
    const utf8 = new Utf8Chunks();
    expect(utf8.check(Buffer.from('ok'))).toBe(true);
    // 0xe0 must be followed by 0xa0 to 0xbf: the chunk ends in no valid start, so it fails at once.
    expect(utf8.check(Buffer.from([0x61, 0xe0, 0x80]))).toBe(false);
  });

  it('gives the text before the first bad byte, the character the chunk before cut included', () => {
    const utf8 = new Utf8Chunks();
    expect(utf8.decode(Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0xc3]))).toBe('a');
    const bad = Buffer.from([0xa9, 0x62, 0xff, 0x63]);
    expect(utf8.decode(bad)).toBeUndefined();
    expect(utf8.textBeforeInvalidBytes(bad)).toBe('éb');
  });
});
