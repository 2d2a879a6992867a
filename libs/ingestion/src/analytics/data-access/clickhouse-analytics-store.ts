import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { type AnalyticsRead, AnalyticsStore, type QueryBudget, QueryOverMemoryBudget, QueryOverTimeBudget } from '../application/analytics-store.port';
import { stoppedByQueryMemoryLimit, stoppedByTimeLimit } from '../../events/data-access/clickhouse-query-limits';
import { analyticsStatement } from './analytics-sql';

/**
 * The Linux nice value of the store's threads while they run an analytics query: a query scanning
 * millions of events yields the cores to tracking and inserts (nice 0) rather than slowing them,
 * and still gets about a tenth of a contended core. The engine in process runs its threads inside
 * the service's process; a server renices its own. Without CAP_SYS_NICE it is a no-op.
 */
const ANALYTICS_NICE = '10';

/**
 * Analytics on the event store in ClickHouse (server or in process: the same SQL, and both honour the
 * budget settings). Rows are read as a stream of lines, one JSON object each.
 */
export class ClickHouseAnalyticsStore extends AnalyticsStore {
  constructor(private readonly client: ClickHouseClient) {
    super();
  }

  async *rows(read: AnalyticsRead): AsyncIterable<string> {
    const statement = analyticsStatement(read.accountId, read.spec, read.maxRows);
    let stream: Readable;
    try {
      ({ stream } = await this.client.exec({
        query: `${statement.sql} FORMAT TabSeparatedRaw`,
        query_params: statement.params,
        clickhouse_settings: {
          max_execution_time: read.budget.maxExecutionSeconds,
          max_memory_usage: String(read.budget.maxMemoryBytes),
          os_thread_priority: ANALYTICS_NICE,
        },
      }));
    } catch (error) {
      throw overBudget(error, read.budget);
    }
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    try {
      for await (const line of lines) yield line;
    } catch (error) {
      throw overBudget(error, read.budget);
    } finally {
      // Also when the caller stops early (it has its rows): the stream's connection is released.
      lines.close();
      stream.destroy();
    }
  }
}

/** The failure that says which budget stopped the query, or the same failure when none did. */
function overBudget(error: unknown, budget: QueryBudget): unknown {
  if (stoppedByTimeLimit(error)) return new QueryOverTimeBudget(budget, error);
  if (stoppedByQueryMemoryLimit(error)) return new QueryOverMemoryBudget(error);
  return error;
}
