import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import {
  QueryAbandoned,
  type AnalyticsRead,
  AnalyticsStore,
  type QueryBudget,
  QueryOverMemoryBudget,
  QueryOverTimeBudget,
} from '../application/analytics-store.port';
import { stoppedByQueryMemoryLimit, stoppedByTimeLimit } from '../../events/data-access/clickhouse-query-limits';
import { analyticsStatement } from './analytics-sql';
import { QueryWatch, type StopReason } from './query-watch';

/**
 * The Linux nice value of the store's threads while they run an analytics query: a query scanning
 * millions of events yields the cores to tracking and inserts (nice 0) rather than slowing them,
 * and still gets about a tenth of a contended core. The engine in process runs its threads inside
 * the service's process; a server renices its own. Without CAP_SYS_NICE it is a no-op.
 */
const ANALYTICS_NICE = '10';

/**
 * Analytics on the event store in ClickHouse (server or in process: the same SQL, and both honour the
 * budget settings). Rows are read as a stream of lines, one JSON object each. Each query runs under a
 * `QueryWatch`, which stops it in the store past its time budget or once its client has gone, and
 * ends only when the store has stopped it.
 */
export class ClickHouseAnalyticsStore extends AnalyticsStore {
  constructor(private readonly client: ClickHouseClient) {
    super();
  }

  async *rows(read: AnalyticsRead): AsyncIterable<string> {
    const statement = analyticsStatement(read.accountId, read.spec, read.maxRows);
    const watch = new QueryWatch(this.client, randomUUID(), read.budget, read.abandoned);
    let stream: Readable | undefined;
    let lines: Interface | undefined;
    try {
      ({ stream } = await this.client.exec({
        query: `${statement.sql} FORMAT TabSeparatedRaw`,
        query_params: statement.params,
        query_id: watch.queryId,
        abort_signal: watch.signal,
        clickhouse_settings: {
          max_execution_time: read.budget.maxExecutionSeconds,
          max_memory_usage: String(read.budget.maxMemoryBytes),
          os_thread_priority: ANALYTICS_NICE,
        },
      }));
      lines = createInterface({ input: stream, crlfDelay: Infinity });
      for await (const line of lines) yield line;
    } catch (error) {
      throw failureOf(error, watch.stoppedBy, read.budget);
    } finally {
      // Also when the caller stops early (it has its rows): the stream's connection is released.
      lines?.close();
      stream?.destroy();
      await watch.end();
    }
  }
}

/** The failure that says why the query stopped: a budget, or its client gone; else the store's failure as it is. */
function failureOf(error: unknown, stoppedBy: StopReason | undefined, budget: QueryBudget): unknown {
  if (stoppedBy === 'client gone') return new QueryAbandoned(error);
  if (stoppedBy === 'time budget' || stoppedByTimeLimit(error)) return new QueryOverTimeBudget(budget, error);
  if (stoppedByQueryMemoryLimit(error)) return new QueryOverMemoryBudget(error);
  return error;
}
