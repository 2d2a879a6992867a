import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { AnalyticsSpec } from './analytics-spec';
import { AnalyticsStore, QueryAbandoned, type QueryBudget, QueryOverMemoryBudget, QueryOverTimeBudget } from './analytics-store.port';

/** When a refused client may try again: a query takes at most its time budget, usually far less. */
const RETRY_AFTER_SECONDS = 1;

/** What a query answers, and how loaded the account's share of the store was while it ran. */
export interface AnalyticsAnswer {
  readonly rows: unknown[];
  /** Whether there were more rows than answered (`X-Rows-Truncated: true`). */
  readonly truncated: boolean;
  readonly concurrency: Concurrency;
}

/** `X-Concurrency-Limit` and `X-Concurrency-Used`: this query included in `used`. */
export interface Concurrency {
  readonly limit: number;
  readonly used: number;
}

/** Thrown when the account already runs as many queries as it may; the headers still report the load. */
export class ConcurrencyExceeded extends DomainError {
  constructor(readonly concurrency: Concurrency) {
    super('throttled', `At most ${concurrency.limit} analytics queries may run at once for an account: retry once one has finished`, {
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
  }
}

/**
 * How a query ended, the `outcome` label of `guidepost_analytics_queries_total`: operators tell a
 * store that is too busy for the time budget (`over_time_budget`, answered 503) from one that is down
 * (`failed`, also 503), and the clients' own doing: queries too heavy for any store
 * (`over_memory_budget`, 400), conditions that do not compile (`invalid`, 400), too many at once
 * (`concurrency_limited`, 429), and queries whose client went away before the answer (`abandoned`).
 */
type QueryOutcome = 'answered' | 'concurrency_limited' | 'invalid' | 'over_time_budget' | 'over_memory_budget' | 'abandoned' | 'failed';

/**
 * Synchronous analytics queries. Each account may run `GUIDEPOST_ANALYTICS_CONCURRENT_QUERIES` at once
 * in this process; each query runs within the time and memory budget and answers at most
 * `GUIDEPOST_ANALYTICS_MAX_ROWS` rows (or the fewer it asks for).
 */
@Injectable()
export class AnalyticsQueries {
  private readonly running = new Map<string, number>();
  private readonly outcomes: Counter<'outcome'>;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly config: AppConfig,
    metrics: MetricsRegistry,
  ) {
    this.outcomes = metrics.counter({
      name: 'guidepost_analytics_queries_total',
      help: 'Analytics queries by outcome: answered, concurrency_limited (429), invalid (400), over_time_budget (503), over_memory_budget (400), abandoned (client gone), failed',
      labelNames: ['outcome'],
    });
  }

  /** The load an account's query would see now, without running one (for headers of refused requests). */
  concurrencyOf(accountId: string): Concurrency {
    return { limit: this.config.analytics.concurrentQueries, used: this.running.get(accountId) ?? 0 };
  }

  /**
   * Runs the query within the account's concurrency; `abandoned` aborts when its client has gone. The
   * account's slot is freed once the store has stopped the query, whatever ended it.
   */
  async query(accountId: string, spec: AnalyticsSpec, abandoned?: AbortSignal): Promise<AnalyticsAnswer> {
    try {
      const answer = await this.run(accountId, spec, abandoned);
      this.outcomes.inc({ outcome: 'answered' });
      return answer;
    } catch (error) {
      this.outcomes.inc({ outcome: outcomeOf(error) });
      throw error;
    }
  }

  private async run(accountId: string, spec: AnalyticsSpec, abandoned: AbortSignal | undefined): Promise<AnalyticsAnswer> {
    const concurrency = this.acquire(accountId);
    try {
      const maxRows = rowCapOf(spec, this.config.analytics.maxRows);
      const rows: unknown[] = [];
      // One more row than answered tells whether the result was clamped.
      for await (const row of this.store.rows({ accountId, spec, maxRows: maxRows + 1, budget: budgetOf(this.config), abandoned })) {
        rows.push(JSON.parse(row));
      }
      return { rows: rows.slice(0, maxRows), truncated: rows.length > maxRows, concurrency };
    } finally {
      this.release(accountId);
    }
  }

  private acquire(accountId: string): Concurrency {
    const { limit, used } = this.concurrencyOf(accountId);
    if (used >= limit) throw new ConcurrencyExceeded({ limit, used });
    this.running.set(accountId, used + 1);
    return { limit, used: used + 1 };
  }

  private release(accountId: string): void {
    const used = (this.running.get(accountId) ?? 1) - 1;
    if (used === 0) this.running.delete(accountId);
    else this.running.set(accountId, used);
  }
}

function outcomeOf(error: unknown): QueryOutcome {
  if (error instanceof ConcurrencyExceeded) return 'concurrency_limited';
  if (error instanceof QueryOverTimeBudget) return 'over_time_budget';
  if (error instanceof QueryOverMemoryBudget) return 'over_memory_budget';
  if (error instanceof QueryAbandoned) return 'abandoned';
  // The conditions are compiled with the statement: a condition at fault is found there.
  if (error instanceof DomainError && error.code === 'invalid_request') return 'invalid';
  return 'failed';
}

/** The most rows of a query's answer or export: the spec's `limit`, never more than the server's `serverMaxRows`. */
export function rowCapOf(spec: AnalyticsSpec, serverMaxRows: number): number {
  return Math.min(spec.limit ?? serverMaxRows, serverMaxRows);
}

/** The per-query budget of the configuration, enforced by the store as ClickHouse settings. */
export function budgetOf(config: AppConfig): QueryBudget {
  return { maxExecutionSeconds: config.analytics.maxExecutionSeconds, maxMemoryBytes: config.analytics.maxMemoryBytes };
}
