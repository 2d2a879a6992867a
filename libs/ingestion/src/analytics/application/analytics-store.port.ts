import { DomainError } from '@guidepost/platform-errors';
import type { AnalyticsSpec } from './analytics-spec';

/** How much of the event store one analytics query may use (ClickHouse settings of the query). */
export interface QueryBudget {
  readonly maxExecutionSeconds: number;
  readonly maxMemoryBytes: number;
}

/** A validated query of one account, with the most rows to read back. */
export interface AnalyticsRead {
  readonly accountId: string;
  readonly spec: AnalyticsSpec;
  readonly maxRows: number;
  readonly budget: QueryBudget;
  /** Aborted when nobody waits for the answer any more (the client closed its connection). */
  readonly abandoned?: AbortSignal;
}

/** What makes a query ask for less: said by both refusals below. */
const NARROW = 'narrow start_time and end_time, add conditions or drop dimensions';

/**
 * A query stopped by its memory budget. The same query needs as much memory every time, so it is the
 * client's to change (400), and an export of it fails at once rather than being tried again.
 */
export class QueryOverMemoryBudget extends DomainError {
  readonly permanent = true;

  constructor(cause: unknown) {
    super('invalid_request', `query: needs more than the memory budget of an analytics query; ${NARROW}`, { cause });
  }
}

/**
 * A query stopped by its time budget, which counts time on the clock: a query that fits it on a quiet
 * store runs out of it when the store's CPU goes to tracking first (the engine runs in an idle CPU
 * group in the standalone shape), and a heavy one runs out of it always. The first passes later, so
 * the answer is 503 with Retry-After rather than a 400; an export of it is tried a few times and then
 * fails with this reason (`transient = false`: not waited out like an outage, whatever its cause shows).
 */
export class QueryOverTimeBudget extends DomainError {
  readonly transient = false;

  constructor(budget: QueryBudget, cause: unknown) {
    super(
      'unavailable',
      `query: did not finish within the ${budget.maxExecutionSeconds} s time budget of an analytics query: the event store is busy ` +
        `(tracking comes first) or the query is too heavy; retry after Retry-After, or ${NARROW}`,
      { cause, retryAfterSeconds: budget.maxExecutionSeconds },
    );
  }
}

/** A query stopped because its client went away: nobody reads its answer. */
export class QueryAbandoned extends Error {
  constructor(cause: unknown) {
    super('query: stopped, its client went away', { cause });
    this.name = 'QueryAbandoned';
  }
}

/**
 * Runs analytics queries on the event store. Rows come back as JSON object texts, one per row, in
 * the answer's order, at most `maxRows` of them: the caller asks for one more than it answers to
 * learn whether the result was clamped. A query stopped by its budget fails with `QueryOverMemoryBudget`
 * or `QueryOverTimeBudget`, one whose client went away with `QueryAbandoned`; either way the store has
 * stopped it by the time the iteration ends, so a caller counting running queries counts what the
 * store runs.
 */
export abstract class AnalyticsStore {
  abstract rows(read: AnalyticsRead): AsyncIterable<string>;
}
