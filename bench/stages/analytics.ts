import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';
import { loadConfig } from '@guidepost/platform-config';
import { analyticsSpecOf, analyticsStatement } from '@guidepost/ingestion';
import { atMost, type Figure, ratioAtLeast } from '../report';
import { elapsedSince } from '../support/clock';
import { BenchAccount } from '../support/guidepost-client';
import { startGuidepost, type GuidepostServerOptions } from '../support/guidepost-server';
import { count } from '../units';
import type { LoadResult } from '../support/load-generator';
import { importUntil } from './import';
import { trackLoad, trackPath } from './track';

export const ANALYTICS_STAGE = '5 analytics';
/** Issue 12: an aggregate query over 10 M events of one account answers in under 1 s. */
const TARGET_MS = 1_000;
/** Timed runs of each query after one untimed warm-up; the median counts. */
const RUNS = 5;
/** Every generated event (they start on 2025-06-01, 2.5 s apart: 10 M span about ten months). */
const WINDOW = { start_time: '2025-01-01T00:00:00Z', end_time: '2027-01-01T00:00:00Z' };
const FLOW_FUNNEL = { ...WINDOW, metrics: ['events', 'users'], dimensions: ['flow_id', 'name'], conditions: [['name', '==', 'flow_step_completed']] };
const QUERIES = {
  'top events (events, users by name)': { ...WINDOW, metrics: ['events', 'users'], dimensions: ['name'] },
  'flow funnel (events, users by flow_id, name)': FLOW_FUNNEL,
} as const;
/** Issue 12: tracking is at most 10 % slower while an analytics query runs. */
const TRACKING_KEPT = 0.9;
const TRACK_CONNECTIONS = 50;
const TRACK_SECONDS = 10;
const TRACK_WARMUP_SECONDS = 3;

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
    const { accountId, measured, tracking } = await measureThroughApi(server, events, workDir);
    const baselines = await storeBaselines(join(workDir, 'data'), accountId);
    return [...Object.keys(QUERIES).map((name) => figureOf(name, events, measured.get(name), baselines.get(name))), trackingFigure(tracking)];
  } finally {
    if (keepData) console.error(`[bench] kept ${workDir}`);
    else await rm(workDir, { recursive: true, force: true });
  }
}

async function measureThroughApi(
  server: Omit<GuidepostServerOptions, 'dataDir' | 'logFile'>,
  events: number,
  workDir: string,
): Promise<{ accountId: string; measured: Map<string, number>; tracking: TrackingUnderAnalytics }> {
  const running = await startGuidepost({ ...server, dataDir: join(workDir, 'data'), logFile: join(workDir, 'server.log') });
  try {
    const { account } = await importUntil({ account: await BenchAccount.create(running, 'bench analytics'), rows: 0, nextRow: 0 }, events, workDir);
    const measured = new Map<string, number>();
    for (const [name, spec] of Object.entries(QUERIES)) measured.set(name, await medianMs(() => apiQuery(account, spec)));
    return { accountId: account.id, measured, tracking: await trackingUnderAnalytics(account) };
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

interface TrackingUnderAnalytics {
  readonly alone: LoadResult;
  readonly busy: LoadResult;
  /** Flow funnels answered while `busy` ran. */
  readonly queries: number;
}

/**
 * Track requests/s at 50 connections alone, then while the flow funnel runs over and over (one at a
 * time, as one client's dashboard would), on the same server and account.
 */
async function trackingUnderAnalytics(account: BenchAccount): Promise<TrackingUnderAnalytics> {
  const url = account.url(trackPath('bench-analytics'));
  // Unmeasured: the first load of a server runs cold code, which would flatter the second.
  await trackLoad(account, url, TRACK_CONNECTIONS, TRACK_WARMUP_SECONDS);
  const alone = await trackLoad(account, url, TRACK_CONNECTIONS, TRACK_SECONDS);
  let tracking = true;
  let queries = 0;
  const loop = (async () => {
    while (tracking) {
      await apiQuery(account, FLOW_FUNNEL);
      queries += 1;
    }
  })();
  try {
    const busy = await trackLoad(account, url, TRACK_CONNECTIONS, TRACK_SECONDS);
    return { alone, busy, queries };
  } finally {
    tracking = false;
    await loop;
  }
}

function trackingFigure({ alone, busy, queries }: TrackingUnderAnalytics): Figure {
  const rate = (load: LoadResult) => load.succeeded / load.durationSeconds;
  const ratio = rate(busy) / rate(alone);
  return {
    stage: ANALYTICS_STAGE,
    figure: `track at ${TRACK_CONNECTIONS} connections while flow funnels run back to back (${queries} in ${TRACK_SECONDS} s)`,
    measured: `${count(rate(busy))} req/s (${Math.abs(100 * (1 - ratio)).toFixed(1)} % ${ratio <= 1 ? 'slower' : 'faster'})`,
    baseline: `track alone: ${count(rate(alone))} req/s`,
    ratio,
    target: ratioAtLeast(ratio, TRACKING_KEPT),
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
