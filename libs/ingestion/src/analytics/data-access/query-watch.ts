import { Logger } from '@nestjs/common';
import type { ClickHouseClient } from '@clickhouse/client';
import { reasonOf } from '@guidepost/platform-failures';
import type { QueryBudget } from '../application/analytics-store.port';

/**
 * How long past its time budget a query may run before it is stopped from here: the store's own
 * `max_execution_time` answers first when it can, but it is checked only between blocks of work, and
 * a statement can spend far longer binding, planning or on one block.
 */
const DEADLINE_GRACE_MS = 500;
/** How long the store may take to confirm a stop; past it the query's request is given up (and logged). */
const STOP_TIMEOUT_MS = 10_000;

/** Why a query was stopped from here. */
export type StopReason = 'time budget' | 'client gone';

/**
 * Watches one query in the store (by its `query_id`) and stops it there, with `KILL QUERY ... SYNC`,
 * when its time budget has passed or its client went away: closing the connection alone would
 * leave a ClickHouse server running it (`cancel_http_readonly_queries_on_client_close` is off by
 * default), and the chdb front serves the same KILL. `end` resolves once the store has stopped it,
 * so that a concurrency slot is freed only then.
 */
export class QueryWatch {
  private static readonly logger = new Logger('AnalyticsQueries');
  /** Aborts the query's request, once the store has stopped the query (or did not answer the stop). */
  private readonly request = new AbortController();
  private readonly deadline: NodeJS.Timeout;
  private reason: StopReason | undefined;
  private stopping: Promise<void> | undefined;
  private readonly onAbandoned = (): void => this.stop('client gone');

  constructor(
    private readonly client: ClickHouseClient,
    readonly queryId: string,
    budget: QueryBudget,
    private readonly abandoned?: AbortSignal,
  ) {
    this.deadline = setTimeout(() => this.stop('time budget'), budget.maxExecutionSeconds * 1000 + DEADLINE_GRACE_MS);
    if (abandoned?.aborted) this.stop('client gone');
    else abandoned?.addEventListener('abort', this.onAbandoned, { once: true });
  }

  /** The `abort_signal` of the query's request. */
  get signal(): AbortSignal {
    return this.request.signal;
  }

  /** Why the query was stopped from here, if it was. */
  get stoppedBy(): StopReason | undefined {
    return this.reason;
  }

  /** Stops watching; resolves once a stop asked for has been carried out by the store. */
  async end(): Promise<void> {
    clearTimeout(this.deadline);
    this.abandoned?.removeEventListener('abort', this.onAbandoned);
    await this.stopping;
  }

  private stop(reason: StopReason): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    clearTimeout(this.deadline);
    this.stopping = this.killInStore().finally(() => this.request.abort());
  }

  private async killInStore(): Promise<void> {
    try {
      await this.client.command({
        query: 'KILL QUERY WHERE query_id = {query_id:String} SYNC',
        query_params: { query_id: this.queryId },
        abort_signal: AbortSignal.timeout(STOP_TIMEOUT_MS),
      });
    } catch (error) {
      QueryWatch.logger.warn(
        `the event store did not confirm that it stopped analytics query ${this.queryId} (${this.reason}): ${reasonOf(error)}`,
      );
    }
  }
}
