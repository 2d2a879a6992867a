import { loadConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { analyticsSpecOf } from './analytics-spec';
import { AnalyticsQueries, ConcurrencyExceeded } from './analytics-queries.service';
import { type AnalyticsRead, AnalyticsStore, QueryAbandoned, QueryOverMemoryBudget, QueryOverTimeBudget } from './analytics-store.port';

/** A store whose queries answer `rows` rows once `finish` is called, recording what each asked for. */
class HeldStore extends AnalyticsStore {
  readonly reads: AnalyticsRead[] = [];
  private release!: () => void;
  private readonly held = new Promise<void>((resolve) => (this.release = resolve));

  constructor(private readonly available: number) {
    super();
  }

  finish(): void {
    this.release();
  }

  async *rows(read: AnalyticsRead): AsyncIterable<string> {
    this.reads.push(read);
    await this.held;
    for (let n = 0; n < Math.min(this.available, read.maxRows); n += 1) yield JSON.stringify({ n });
  }
}

const spec = (body: object = {}) =>
  analyticsSpecOf({ start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-02T00:00:00Z', metrics: ['events'], ...body });
const config = loadConfig({ GUIDEPOST_ANALYTICS_CONCURRENT_QUERIES: '2', GUIDEPOST_ANALYTICS_MAX_ROWS: '5' });
const queriesOver = (store: AnalyticsStore, metrics = new MetricsRegistry()) => new AnalyticsQueries(store, config, metrics);

/** A store whose every query fails with `error`. */
function failingStore(error: Error): AnalyticsStore {
  return new (class extends AnalyticsStore {
    async *rows(): AsyncIterable<string> {
      yield* await Promise.reject<string[]>(error);
    }
  })();
}

describe('AnalyticsQueries', () => {
  it('runs at most the limit of queries of one account at once, reporting the load', async () => {
    const store = new HeldStore(1);
    const queries = queriesOver(store);
    const first = queries.query('a', spec());
    const second = queries.query('a', spec());
    const refused = queries.query('a', spec());
    await expect(refused).rejects.toThrow(ConcurrencyExceeded);
    await expect(refused).rejects.toMatchObject({ code: 'throttled', retryAfterSeconds: 1, concurrency: { limit: 2, used: 2 } });
    // Another account has its own share.
    const other = queries.query('b', spec());
    expect(queries.concurrencyOf('a')).toEqual({ limit: 2, used: 2 });
    store.finish();
    expect((await first).concurrency).toEqual({ limit: 2, used: 1 });
    expect((await second).concurrency).toEqual({ limit: 2, used: 2 });
    expect((await other).concurrency).toEqual({ limit: 2, used: 1 });
    expect(queries.concurrencyOf('a')).toEqual({ limit: 2, used: 0 });
  });

  it('frees its place when the query fails', async () => {
    const queries = queriesOver(failingStore(new Error('store unreachable')));
    await expect(queries.query('a', spec())).rejects.toThrow('store unreachable');
    expect(queries.concurrencyOf('a').used).toBe(0);
  });

  it('hands the store the signal of a client going away, and frees the place only once the store has stopped the query', async () => {
    let storeStopped!: () => void;
    const stopping = new Promise<void>((resolve) => (storeStopped = resolve));
    const store = new (class extends AnalyticsStore {
      async *rows(read: AnalyticsRead): AsyncIterable<string> {
        await new Promise((resolve) => read.abandoned?.addEventListener('abort', resolve));
        await stopping;
        yield* await Promise.reject<string[]>(new QueryAbandoned(new Error('Query was cancelled')));
      }
    })();
    const queries = queriesOver(store);
    const clientGone = new AbortController();
    const query = queries.query('a', spec(), clientGone.signal);
    clientGone.abort();
    await new Promise((resolve) => setImmediate(resolve));
    expect(queries.concurrencyOf('a').used).toBe(1);
    storeStopped();
    await expect(query).rejects.toBeInstanceOf(QueryAbandoned);
    expect(queries.concurrencyOf('a').used).toBe(0);
  });

  it('clamps to the row limit, or the fewer rows asked for, reading one more to tell', async () => {
    const store = new HeldStore(100);
    store.finish();
    const queries = queriesOver(store);
    expect(await queries.query('a', spec())).toMatchObject({ rows: [{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }], truncated: true });
    expect(await queries.query('a', spec({ limit: 2 }))).toMatchObject({ rows: [{ n: 0 }, { n: 1 }], truncated: true });
    expect(store.reads.map((read) => read.maxRows)).toEqual([6, 3]);
    expect(store.reads[0]?.budget).toEqual({ maxExecutionSeconds: 10, maxMemoryBytes: 1024 ** 3 });
    const exact = new HeldStore(5);
    exact.finish();
    expect(await queriesOver(exact).query('a', spec())).toMatchObject({ truncated: false });
  });

  it('counts queries by outcome, so that operators tell a busy store from a down one', async () => {
    const metrics = new MetricsRegistry();
    const budget = { maxExecutionSeconds: 10, maxMemoryBytes: 1 };
    const heldStore = new HeldStore(1);
    const held = queriesOver(heldStore, metrics);
    const running = [held.query('a', spec()), held.query('a', spec())];
    await expect(held.query('a', spec())).rejects.toThrow(ConcurrencyExceeded);
    heldStore.finish();
    await Promise.all(running);
    const failures = [
      new QueryOverTimeBudget(budget, new Error('TIMEOUT_EXCEEDED')),
      new QueryOverMemoryBudget(new Error('MEMORY_LIMIT_EXCEEDED')),
      new QueryAbandoned(new Error('Query was cancelled')),
      new DomainError('invalid_request', 'conditions[0][1]: operator "~" is not supported'),
      new Error('ECONNREFUSED'),
    ];
    for (const error of failures) {
      await expect(queriesOver(failingStore(error), metrics).query('a', spec())).rejects.toBe(error);
    }
    const counted = await metrics.getSingleMetricAsString('guidepost_analytics_queries_total');
    for (const outcome of ['answered', 'concurrency_limited', 'over_time_budget', 'over_memory_budget', 'abandoned', 'invalid', 'failed']) {
      expect(counted).toContain(`guidepost_analytics_queries_total{outcome="${outcome}"} ${outcome === 'answered' ? 2 : 1}`);
    }
  });
});
