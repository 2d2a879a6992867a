import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';
import { loadConfig } from '@guidepost/platform-config';
import { analyticsSpecOf, analyticsStatement } from '@guidepost/ingestion';
import { atMost, type Figure } from '../report';
import { elapsedSince } from '../support/clock';
import { BenchAccount } from '../support/guidepost-client';
import { startGuidepost, type GuidepostServerOptions } from '../support/guidepost-server';
import { count } from '../units';
import { importUntil } from './import';

export const ANALYTICS_STAGE = '5 analytics';
/** Issue 12: an aggregate query over 10 M events of one account answers in under 1 s. */
const TARGET_MS = 1_000;
/** Timed runs of each query after one untimed warm-up; the median counts. */
const RUNS = 5;
/** Every generated event (they start on 2025-06-01, 2.5 s apart: 10 M span about ten months). */
const WINDOW = { start_time: '2025-01-01T00:00:00Z', end_time: '2027-01-01T00:00:00Z' };
const QUERIES = {
  'top events (events, users by name)': { ...WINDOW, metrics: ['events', 'users'], dimensions: ['name'] },
  'flow funnel (events, users by flow_id, name)': { ...WINDOW, metrics: ['events', 'users'], dimensions: ['flow_id', 'name'], conditions: [['name', '==', 'flow_step_completed']] },
} as const;

/**
 * `POST /analytics/query` over `events` imported events of one account, on a standalone server of its
 * own (a fresh data folder), timed from request to answer; then, with the server stopped (chdb binds a
 * data folder to one process), the very statement the service compiles run straight in the event
 * store through the same client: what the store itself takes, the floor of any answer.
 */
export async function measureAnalytics(server: Omit<GuidepostServerOptions, 'dataDir' | 'logFile'>, events: number, keepData: boolean): Promise<Figure[]> {
  const workDir = await mkdtemp(join(tmpdir(), 'guidepost-bench-analytics-'));
  // Run as root, the embedded PostgreSQL drops to a `postgres` user that must reach its folder.
  await chmod(workDir, 0o755);
  try {
    const { accountId, measured } = await measureThroughApi(server, events, workDir);
    const baselines = await storeBaselines(join(workDir, 'data'), accountId);
    return Object.keys(QUERIES).map((name) => figureOf(name, events, measured.get(name), baselines.get(name)));
  } finally {
    if (keepData) console.error(`[bench] kept ${workDir}`);
    else await rm(workDir, { recursive: true, force: true });
  }
}

async function measureThroughApi(
  server: Omit<GuidepostServerOptions, 'dataDir' | 'logFile'>,
  events: number,
  workDir: string,
): Promise<{ accountId: string; measured: Map<string, number> }> {
  const running = await startGuidepost({ ...server, dataDir: join(workDir, 'data'), logFile: join(workDir, 'server.log') });
  try {
    const { account } = await importUntil({ account: await BenchAccount.create(running, 'bench analytics'), rows: 0, nextRow: 0 }, events, workDir);
    const measured = new Map<string, number>();
    for (const [name, spec] of Object.entries(QUERIES)) measured.set(name, await medianMs(() => apiQuery(account, spec)));
    return { accountId: account.id, measured };
  } finally {
    await running.stop();
  }
}

function figureOf(name: string, events: number, ms = Number.NaN, baseline = Number.NaN): Figure {
  return {
    stage: ANALYTICS_STAGE,
    figure: `${name} over ${count(events)} events, median of ${RUNS}`,
    measured: milliseconds(ms),
    baseline: `the same SQL straight in the event store: ${milliseconds(baseline)}`,
    // As the other ratios: the store's own time over the answer's, so 100 % means no overhead at all.
    ratio: baseline / ms,
    target: atMost(ms, TARGET_MS, milliseconds),
  };
}

async function apiQuery(account: BenchAccount, spec: object): Promise<void> {
  const response = await fetch(account.url('/analytics/query'), {
    method: 'POST',
    headers: { authorization: account.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /analytics/query: expected 200, got ${response.status}: ${text.slice(0, 500)}`);
}

/** Each query's statement, as the service compiles it, run straight in the store's data folder. */
async function storeBaselines(dataDir: string, accountId: string): Promise<Map<string, number>> {
  const client = await createClickHouseClient(loadConfig({ GUIDEPOST_DATA_DIR: dataDir }));
  try {
    const baselines = new Map<string, number>();
    for (const [name, spec] of Object.entries(QUERIES)) {
      // The service reads one row more than its row limit (10,000 by default).
      const statement = analyticsStatement(accountId, analyticsSpecOf(spec), 10_001);
      baselines.set(
        name,
        await medianMs(async () => {
          const result = await client.exec({ query: `${statement.sql} FORMAT TabSeparatedRaw`, query_params: statement.params });
          for await (const chunk of result.stream) void chunk;
        }),
      );
    }
    return baselines;
  } finally {
    await client.close();
  }
}

async function medianMs(run: () => Promise<void>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let n = 0; n < RUNS; n += 1) {
    const start = performance.now();
    await run();
    times.push(elapsedSince(start));
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

function milliseconds(value: number): string {
  return `${count(value)} ms`;
}
