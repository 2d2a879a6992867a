import { Readable } from 'node:stream';
import { fixedSizeParts } from './fixed-size-parts';

async function partsOf(chunks: readonly (Buffer | string)[], partSize: number): Promise<{ text: string; last: boolean }[]> {
  const parts: { text: string; last: boolean }[] = [];
  for await (const part of fixedSizeParts(Readable.from(chunks), partSize))
    parts.push({ text: part.data.toString('utf8'), last: part.last });
  return parts;
}

describe('fixedSizeParts', () => {
  it('cuts a body into parts of the given size and a shorter last part, whatever its chunks', async () => {
    await expect(partsOf(['abcdefg', 'hij', 'k'], 4)).resolves.toEqual([
      { text: 'abcd', last: false },
      { text: 'efgh', last: false },
      { text: 'ijk', last: true },
    ]);
    await expect(partsOf(['a', 'b', 'c', 'd', 'e'], 2)).resolves.toEqual([
      { text: 'ab', last: false },
      { text: 'cd', last: false },
      { text: 'e', last: true },
    ]);
  });

  it('marks a body that fits in one part as its only, last part', async () => {
    await expect(partsOf([Buffer.from('abc')], 4)).resolves.toEqual([{ text: 'abc', last: true }]);
    await expect(partsOf(['ab', 'cd'], 4)).resolves.toEqual([{ text: 'abcd', last: true }]);
  });

  it('ends a body of whole parts with a full last part, not an empty one', async () => {
    await expect(partsOf(['abcdefgh'], 4)).resolves.toEqual([
      { text: 'abcd', last: false },
      { text: 'efgh', last: true },
    ]);
  });

  it('gives an empty body as one empty last part', async () => {
    await expect(partsOf([], 4)).resolves.toEqual([{ text: '', last: true }]);
  });

  it('cuts bytes, not characters: the parts put back together are the body byte for byte', async () => {
    const body = 'é€😀'.repeat(1000);
    const parts: Buffer[] = [];
    for await (const part of fixedSizeParts(Readable.from([body]), 7)) parts.push(part.data);
    expect(parts.slice(0, -1).every((part) => part.length === 7)).toBe(true);
    expect(Buffer.concat(parts).equals(Buffer.from(body, 'utf8'))).toBe(true);
  });

  it('refuses a part size that is not a positive whole number', async () => {
    await expect(partsOf(['a'], 0)).rejects.toThrow(RangeError);
  });
});
