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

describe('Utf8Chunks against a fatal TextDecoder', () => {
  /** A small deterministic generator, so that a failure can be replayed. */
  function seeded(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
  }

  /** Mostly valid text with now and then a byte from the edges of the UTF-8 ranges, cut into random chunks. */
  function randomCase(random: () => number): Buffer[] {
    const pieces = ['a', ',', '\n', 'é', '€', '😀', '\uFEFF', '\u00a0'];
    const oddBytes = [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90];
    const parts: Buffer[] = [];
    for (let count = 0; count < 12; count += 1) {
      parts.push(
        random() < 0.85
          ? Buffer.from(pieces[Math.floor(random() * pieces.length)])
          : Buffer.from([oddBytes[Math.floor(random() * oddBytes.length)]]),
      );
    }
    const bytes = Buffer.concat(parts);
    const chunks: Buffer[] = [];
    for (let start = 0; start < bytes.length;) {
      const end = Math.min(bytes.length, start + 1 + Math.floor(random() * 5));
      chunks.push(bytes.subarray(start, end));
      start = end;
    }
    return chunks;
  }

  it('accepts and decodes exactly what the decoder accepts, refusing the rest in the same chunk', () => {
    const random = seeded(11);
    for (let run = 0; run < 1000; run += 1) {
      const chunks = randomCase(random);
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const utf8 = new Utf8Chunks();
      let expected = '';
      let actual = '';
      let refused = false;
      for (const chunk of chunks) {
        let piece = '';
        try {
          piece = decoder.decode(chunk, { stream: true });
        } catch {
          refused = true;
        }
        const mine = utf8.decode(chunk);
        expect(mine === undefined).toBe(refused);
        if (refused) break;
        expected += piece;
        actual += mine ?? '';
      }
      if (refused) continue;
      let endsInside = false;
      try {
        expected += decoder.decode();
      } catch {
        endsInside = true;
      }
      expect(utf8.endsInsideCharacter()).toBe(endsInside);
      expect(actual).toBe(expected);
    }
  });
});
