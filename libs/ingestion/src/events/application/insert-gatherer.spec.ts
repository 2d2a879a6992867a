import { InsertGatherer } from './insert-gatherer';

/** Writes the test finishes by hand, so that it can see who waits for what. */
class ManualWrites {
  readonly batches: string[][] = [];
  private readonly pending: { resolve: () => void; reject: (error: Error) => void }[] = [];

  readonly write = (items: string[]): Promise<void> => {
    this.batches.push(items);
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  async succeedNext(): Promise<void> {
    this.pending.shift()!.resolve();
    await jest.advanceTimersByTimeAsync(0);
  }

  async failNext(error: Error): Promise<void> {
    this.pending.shift()!.reject(error);
    await jest.advanceTimersByTimeAsync(0);
  }
}

type Outcome = 'waiting' | 'written' | Error;

function outcomes(promises: Promise<void>[]): Outcome[] {
  const seen: Outcome[] = promises.map(() => 'waiting');
  promises.forEach((promise, index) => {
    promise.then(
      () => (seen[index] = 'written'),
      (error: Error) => (seen[index] = error),
    );
  });
  return seen;
}

const LIMITS = { maxItems: 5, maxWaitMs: 1_000 };

describe('InsertGatherer', () => {
  let writes: ManualWrites;
  let gatherer: InsertGatherer<string>;

  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2024-05-01T00:00:00Z') });
    writes = new ManualWrites();
    gatherer = new InsertGatherer(writes.write, LIMITS);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('writes once the oldest item has waited maxWaitMs, and resolves its submitter only after the write succeeded', async () => {
    const seen = outcomes([gatherer.submit(['a'], Date.now())]);
    await jest.advanceTimersByTimeAsync(999);
    expect(writes.batches).toEqual([]);

    await jest.advanceTimersByTimeAsync(1);
    expect(writes.batches).toEqual([['a']]);
    expect(seen).toEqual(['waiting']);

    await writes.succeedNext();
    expect(seen).toEqual(['written']);
  });

  it('gathers concurrent submitters into one write, due by the oldest item', async () => {
    const first = gatherer.submit(['a', 'b'], Date.now());
    await jest.advanceTimersByTimeAsync(600);
    const later = [gatherer.submit(['c'], Date.now()), gatherer.submit(['d'], Date.now())];
    const seen = outcomes([first, ...later]);

    await jest.advanceTimersByTimeAsync(400);
    expect(writes.batches).toEqual([['a', 'b', 'c', 'd']]);
    await writes.succeedNext();
    expect(seen).toEqual(['written', 'written', 'written']);
  });

  it('writes at once when maxItems are gathered, and gathers the next ones for a write of their own', async () => {
    const seen = outcomes([gatherer.submit(['a', 'b', 'c'], Date.now()), gatherer.submit(['d', 'e'], Date.now())]);
    expect(writes.batches).toEqual([['a', 'b', 'c', 'd', 'e']]);

    const next = outcomes([gatherer.submit(['f'], Date.now())]);
    await writes.succeedNext();
    expect(seen).toEqual(['written', 'written']);
    expect(next).toEqual(['waiting']);

    await jest.advanceTimersByTimeAsync(1_000);
    expect(writes.batches).toEqual([['a', 'b', 'c', 'd', 'e'], ['f']]);
  });

  it('counts the wait from when items were accepted upstream: a backlog is written at once', async () => {
    void gatherer.submit(['fresh-ish'], Date.now() - 800);
    await jest.advanceTimersByTimeAsync(199);
    expect(writes.batches).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(writes.batches).toEqual([['fresh-ish']]);

    void gatherer.submit(['backlog'], Date.now() - 60_000);
    expect(writes.batches).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(0);
    expect(writes.batches).toEqual([['fresh-ish'], ['backlog']]);
  });

  it('waits no longer than maxWaitMs for items stamped in the future by another clock', async () => {
    void gatherer.submit(['skewed'], Date.now() + 60_000);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(writes.batches).toEqual([['skewed']]);
  });

  it('rejects every submitter of a failed write with its error, and still writes the next gathering', async () => {
    const failure = new Error('ClickHouse is down');
    const seen = outcomes([gatherer.submit(['a'], Date.now()), gatherer.submit(['b'], Date.now())]);
    await jest.advanceTimersByTimeAsync(1_000);
    const next = outcomes([gatherer.submit(['c'], Date.now())]);
    await writes.failNext(failure);
    expect(seen).toEqual([failure, failure]);

    await jest.advanceTimersByTimeAsync(1_000);
    await writes.succeedNext();
    expect(writes.batches).toEqual([['a', 'b'], ['c']]);
    expect(next).toEqual(['written']);
  });

  it('rejects when the write throws before returning a promise', async () => {
    const throwing = new InsertGatherer<string>(() => {
      throw new Error('not connected');
    }, LIMITS);
    const submitted = throwing.submit(['a'], Date.now());
    const settled = expect(submitted).rejects.toThrow('not connected');
    await jest.advanceTimersByTimeAsync(1_000);
    await settled;
  });

  it('resolves an empty submission at once, without writing', async () => {
    await expect(gatherer.submit([], Date.now())).resolves.toBeUndefined();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(writes.batches).toEqual([]);
  });

  it('on drain, writes what is gathered at once and resolves when every write has settled', async () => {
    const seen = outcomes([gatherer.submit(['a'], Date.now())]);
    let drained = false;
    void gatherer.drain().then(() => (drained = true));
    expect(writes.batches).toEqual([['a']]);
    await jest.advanceTimersByTimeAsync(0);
    expect(drained).toBe(false);

    await writes.succeedNext();
    expect(drained).toBe(true);
    expect(seen).toEqual(['written']);
  });
});
