import type { DataSource } from 'typeorm';
import { SharedRateLimiter } from './shared-rate-limiter';

/** A database that takes every query and never answers: PostgreSQL frozen, or cut off by a partition. */
const frozenDatabase = { query: () => new Promise<never>(() => undefined) } as unknown as DataSource;

describe('SharedRateLimiter with a database that does not answer', () => {
  it('limits on its own budget within a second, then without waiting, instead of holding requests', async () => {
    const limiter = new SharedRateLimiter(frozenDatabase, 3);
    const started = Date.now();
    const first = await limiter.take('acme');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(first).toMatchObject({ allowed: true, limit: 3 });

    const next = Date.now();
    const decisions = [await limiter.take('acme'), await limiter.take('acme'), await limiter.take('acme')];
    expect(Date.now() - next).toBeLessThan(100);
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
  });
});
