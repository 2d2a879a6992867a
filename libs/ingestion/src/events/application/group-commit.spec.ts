import { GroupCommit } from './group-commit';

/** A commit the test finishes by hand, so that it can submit while one is in flight. */
class ManualCommits {
  readonly batches: string[][] = [];
  private readonly pending: { resolve: () => void; reject: (error: Error) => void }[] = [];

  readonly commit = (items: string[]): Promise<void> => {
    this.batches.push(items);
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  async succeedNext(): Promise<void> {
    this.pending.shift()!.resolve();
    await settle();
  }

  async failNext(error: Error): Promise<void> {
    this.pending.shift()!.reject(error);
    await settle();
  }
}

/** Lets every promise callback that is ready run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function outcomes(promises: Promise<void>[]): ('pending' | 'committed' | Error)[] {
  const seen: ('pending' | 'committed' | Error)[] = promises.map(() => 'pending');
  promises.forEach((promise, index) => {
    promise.then(
      () => (seen[index] = 'committed'),
      (error: Error) => (seen[index] = error),
    );
  });
  return seen;
}

const LARGE = { maxItems: 1_000, maxBytes: 1_000_000 };

describe('GroupCommit', () => {
  it('commits a lone item at once, and resolves it only after the commit succeeded', async () => {
    const commits = new ManualCommits();
    const group = new GroupCommit(commits.commit, LARGE);
    const seen = outcomes([group.submit('a', 1)]);
    await settle();
    expect(commits.batches).toEqual([['a']]);
    expect(seen).toEqual(['pending']);

    await commits.succeedNext();
    expect(seen).toEqual(['committed']);
  });

  it('collects everything submitted while a commit is in flight into one next commit', async () => {
    const commits = new ManualCommits();
    const group = new GroupCommit(commits.commit, LARGE);
    const first = outcomes([group.submit('a', 1)]);
    const waiting = outcomes(['b', 'c', 'd'].map((item) => group.submit(item, 1)));
    await settle();
    expect(commits.batches).toEqual([['a']]);

    await commits.succeedNext();
    expect(first).toEqual(['committed']);
    expect(commits.batches).toEqual([['a'], ['b', 'c', 'd']]);
    expect(waiting).toEqual(['pending', 'pending', 'pending']);

    await commits.succeedNext();
    expect(waiting).toEqual(['committed', 'committed', 'committed']);
  });

  it('forms batches under concurrent submitters: few commits for many items', async () => {
    const commitSizes: number[] = [];
    const group = new GroupCommit(async (items: number[]) => {
      commitSizes.push(items.length);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }, LARGE);
    // 50 submitters, each submitting 20 items one after another as its previous item commits.
    const submitter = async (id: number) => {
      for (let index = 0; index < 20; index += 1) await group.submit(id * 100 + index, 1);
    };
    await Promise.all(Array.from({ length: 50 }, (_, id) => submitter(id)));
    expect(commitSizes.reduce((sum, size) => sum + size, 0)).toBe(1_000);
    expect(commitSizes.length).toBeLessThan(100);
    expect(Math.max(...commitSizes)).toBeGreaterThan(40);
  });

  it('never puts more than maxItems into one commit', async () => {
    const commits = new ManualCommits();
    const group = new GroupCommit(commits.commit, { maxItems: 2, maxBytes: 1_000 });
    const all = outcomes(['a', 'b', 'c', 'd', 'e'].map((item) => group.submit(item, 1)));
    for (let commit = 0; commit < 3; commit += 1) await commits.succeedNext();
    expect(commits.batches).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
    expect(all).toEqual(['committed', 'committed', 'committed', 'committed', 'committed']);
  });

  it('never puts more than maxBytes into one commit, but commits an oversized item alone', async () => {
    const commits = new ManualCommits();
    const group = new GroupCommit(commits.commit, { maxItems: 100, maxBytes: 10 });
    void group.submit('first', 1);
    void group.submit('a', 6);
    void group.submit('b', 4);
    void group.submit('huge', 50);
    void group.submit('c', 3);
    for (let commit = 0; commit < 4; commit += 1) await commits.succeedNext();
    expect(commits.batches).toEqual([['first'], ['a', 'b'], ['huge'], ['c']]);
  });

  it('waits lingerMs before each commit, so that items submitted meanwhile join it', async () => {
    jest.useFakeTimers();
    try {
      const commits = new ManualCommits();
      const group = new GroupCommit(commits.commit, { ...LARGE, lingerMs: 5 });
      void group.submit('a', 1);
      await jest.advanceTimersByTimeAsync(4);
      void group.submit('b', 1);
      expect(commits.batches).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(commits.batches).toEqual([['a', 'b']]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('does not linger when maxItems are already waiting', async () => {
    const commits = new ManualCommits();
    const group = new GroupCommit(commits.commit, { maxItems: 2, maxBytes: 1_000, lingerMs: 60_000 });
    void group.submit('a', 1);
    void group.submit('b', 1);
    await settle();
    expect(commits.batches).toEqual([['a', 'b']]);
  });

  it('rejects every item of a failed commit with its error, and still commits the next batch', async () => {
    const commits = new ManualCommits();
    const group = new GroupCommit(commits.commit, LARGE);
    const first = outcomes([group.submit('a', 1), group.submit('b', 1), group.submit('c', 1)]);
    await settle();
    await commits.succeedNext();
    const failure = new Error('connection lost');
    const later = outcomes([group.submit('d', 1)]);
    await commits.failNext(failure);
    expect(first).toEqual(['committed', failure, failure]);
    expect(later).toEqual(['pending']);

    await commits.succeedNext();
    expect(later).toEqual(['committed']);
  });

  it('rejects the batch when the commit throws before returning a promise', async () => {
    const group = new GroupCommit<string>(() => {
      throw new Error('not connected');
    }, LARGE);
    await expect(group.submit('a', 1)).rejects.toThrow('not connected');
    await expect(group.submit('b', 1)).rejects.toThrow('not connected');
  });

  it('reports drained once everything submitted so far is settled', async () => {
    const commits = new ManualCommits();
    const group = new GroupCommit(commits.commit, LARGE);
    const seen = outcomes([group.submit('a', 1), group.submit('b', 1)]);
    let drained = false;
    void group.drained().then(() => (drained = true));
    await commits.succeedNext();
    expect(drained).toBe(false);
    await commits.succeedNext();
    expect(drained).toBe(true);
    expect(seen).toEqual(['committed', 'committed']);
  });
});
