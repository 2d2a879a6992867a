import { type ClaimOutcome, IdempotencyStore, type StoredAnswer } from './idempotency-store.port';
import { IdempotencySweep } from './idempotency-sweep';

class ExpiredRows extends IdempotencyStore {
  calls: number[] = [];
  constructor(
    private expired: number,
    private readonly failing = false,
  ) {
    super();
  }

  deleteExpired(limit: number): Promise<number> {
    this.calls.push(limit);
    if (this.failing) return Promise.reject(new Error('connection refused'));
    const deleted = Math.min(limit, this.expired);
    this.expired -= deleted;
    return Promise.resolve(deleted);
  }

  claim(): Promise<ClaimOutcome> {
    throw new Error('not used');
  }
  renew(): Promise<boolean> {
    throw new Error('not used');
  }
  complete(_ref: unknown, _token: string, _digest: Buffer, _answer: StoredAnswer): Promise<boolean> {
    throw new Error('not used');
  }
  release(): Promise<void> {
    throw new Error('not used');
  }
}

describe('IdempotencySweep', () => {
  it('deletes expired keys in batches until none is left', async () => {
    const store = new ExpiredRows(12_345);
    await expect(new IdempotencySweep(store).sweepOnce()).resolves.toBe(12_345);
    expect(store.calls).toEqual([5_000, 5_000, 5_000]);
  });

  it('runs one sweep at a time, and a failed one is only logged', async () => {
    const sweep = new IdempotencySweep(new ExpiredRows(0, true));
    const [first, second] = [sweep.sweepOnce(), sweep.sweepOnce()];
    expect(second).toBe(first);
    await expect(first).resolves.toBe(0);
  });

  it('sweeps on its interval once started, and stops with the application', async () => {
    jest.useFakeTimers();
    try {
      const store = new ExpiredRows(3);
      const sweep = new IdempotencySweep(store, 1_000);
      sweep.onApplicationBootstrap();
      await jest.advanceTimersByTimeAsync(2_500);
      expect(store.calls.length).toBe(2);
      await sweep.onApplicationShutdown();
      await jest.advanceTimersByTimeAsync(5_000);
      expect(store.calls.length).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
