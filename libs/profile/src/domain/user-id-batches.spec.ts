import { distinctUserIdBatches } from './user-id-batches';

async function* idsFrom(values: readonly string[]): AsyncGenerator<string> {
  for (const value of values) yield await Promise.resolve(value);
}

async function collect(batches: AsyncIterable<string[]>): Promise<string[][]> {
  const all: string[][] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}

describe('distinctUserIdBatches', () => {
  it('fills batches with distinct ids in input order', async () => {
    expect(await collect(distinctUserIdBatches(idsFrom(['a', 'a', 'b', 'c', 'c', 'd', 'e']), 2))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('repeats an id that comes back in a later batch (it is simply written again)', async () => {
    expect(await collect(distinctUserIdBatches(idsFrom(['a', 'b', 'a']), 2))).toEqual([['a', 'b'], ['a']]);
  });

  it('gives no batch for no ids', async () => {
    expect(await collect(distinctUserIdBatches(idsFrom([])))).toEqual([]);
  });
});
