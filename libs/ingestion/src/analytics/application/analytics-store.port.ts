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
}

/**
 * Runs analytics queries on the event store. Rows come back as JSON object texts, one per row, in
 * the answer's order, at most `maxRows` of them: the caller asks for one more than it answers to
 * learn whether the result was clamped. A query over its budget fails with a 400 saying so.
 */
export abstract class AnalyticsStore {
  abstract rows(read: AnalyticsRead): AsyncIterable<string>;
}
