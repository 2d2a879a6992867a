/**
 * Hands out the items of a stream of batches one at a time. Readers parse a whole chunk at once and
 * yield it as a batch; an async generator yielding each item would cost several times more per item,
 * which shows on imports of millions of records.
 */
export function oneByOne<T>(batches: AsyncIterable<readonly T[]>): AsyncIterableIterator<T> {
  const source = batches[Symbol.asyncIterator]();
  let batch: readonly T[] = [];
  let at = 0;
  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => iterator,
    async next(): Promise<IteratorResult<T>> {
      while (at >= batch.length) {
        const next = await source.next();
        if (next.done) return { done: true, value: undefined };
        batch = next.value;
        at = 0;
      }
      at += 1;
      return { done: false, value: batch[at - 1] };
    },
    async return(): Promise<IteratorResult<T>> {
      await source.return?.();
      return { done: true, value: undefined };
    },
  };
  return iterator;
}
