import { DomainError } from '@guidepost/platform-errors';
import { chunkUserIds, USER_IDS_PER_CHUNK } from './user-id-chunks';

async function* idsFrom(values: Iterable<string>, onPull: () => void = () => undefined): AsyncGenerator<string> {
  for (const value of values) {
    await Promise.resolve();
    onPull();
    yield value;
  }
}

const ids = (count: number): string[] => Array.from({ length: count }, (_, index) => `user-${index}`);

async function collect(chunks: AsyncIterable<string[]>): Promise<string[][]> {
  const all: string[][] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe('chunkUserIds', () => {
  it('splits into chunks of 5 000 ids, the last one holding the rest, in input order', async () => {
    const input = ids(2 * USER_IDS_PER_CHUNK + 1);
    const chunks = await collect(chunkUserIds(idsFrom(input)));
    expect(chunks.map((chunk) => chunk.length)).toEqual([5_000, 5_000, 1]);
    expect(chunks.flat()).toEqual(input);
  });

  it('gives exactly one chunk for exactly one chunk of ids, and none for no ids', async () => {
    expect((await collect(chunkUserIds(idsFrom(ids(USER_IDS_PER_CHUNK))))).map((chunk) => chunk.length)).toEqual([5_000]);
    expect(await collect(chunkUserIds(idsFrom([])))).toEqual([]);
  });

  it('keeps duplicates: applying them twice is harmless, dropping them would need memory', async () => {
    expect(await collect(chunkUserIds(idsFrom(['a', 'a', 'b']), 2))).toEqual([['a', 'a'], ['b']]);
  });

  it('reads the input only as far as the chunk being handed out (never more than one chunk held)', async () => {
    let pulled = 0;
    const chunks = chunkUserIds(idsFrom(ids(3 * USER_IDS_PER_CHUNK), () => (pulled += 1)));
    await chunks.next();
    expect(pulled).toBe(USER_IDS_PER_CHUNK);
    await chunks.next();
    expect(pulled).toBe(2 * USER_IDS_PER_CHUNK);
  });

  it('passes on the failure of the input (a bad line) after the chunks before it', async () => {
    async function* badAfterTwo(): AsyncGenerator<string> {
      yield await Promise.resolve('a');
      yield 'b';
      throw new DomainError('invalid_request', 'line 3: expected a JSON string');
    }
    const chunks = chunkUserIds(badAfterTwo(), 2);
    expect((await chunks.next()).value).toEqual(['a', 'b']);
    await expect(chunks.next()).rejects.toThrow('line 3: expected a JSON string');
  });
});
