import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { DomainError } from '@guidepost/platform-errors';
import { type AnalyticsRead, AnalyticsStore } from '../application/analytics-store.port';
import { analyticsStatement } from './analytics-sql';

/** ClickHouse error codes of a query stopped by its budget: TIMEOUT_EXCEEDED, TOO_SLOW, MEMORY_LIMIT_EXCEEDED. */
const OVER_BUDGET_CODES = new Set(['159', '160', '241']);
const OVER_BUDGET_NAMES = /\b(TIMEOUT_EXCEEDED|TOO_SLOW|MEMORY_LIMIT_EXCEEDED)\b/;
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
      throw overBudget(error);
    }
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    try {
      for await (const line of lines) yield line;
    } catch (error) {
      throw overBudget(error);
    } finally {
      // Also when the caller stops early (it has its rows): the stream's connection is released.
      lines.close();
      stream.destroy();
    }
  }
}

/** The same failure, or a 400 saying what to narrow when the query was stopped by its budget (the code, or its name in a streamed error's text). */
function overBudget(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const stopped = (typeof code === 'string' && OVER_BUDGET_CODES.has(code)) || (typeof message === 'string' && OVER_BUDGET_NAMES.test(message));
  if (!stopped) return error;
  return new DomainError(
    'invalid_request',
    'query: needs more than the time or memory budget of an analytics query; narrow start_time and end_time, add conditions or drop dimensions',
    { cause: error },
  );
}
