import type { EventExportRequest } from '@guidepost/contracts-http';
import type { ClickHouseClient } from '@clickhouse/client';
import { ratioAtLeast, type Figure } from '../report';
import { countBytesAndLines, type ByteCount } from '../support/byte-count';
import { elapsedSince } from '../support/clock';
import { BenchAccount, completedAttributes, countAttribute, downloadStream } from '../support/guidepost-client';
import { stageOfShape, type Deployment, type Shape } from '../support/deployment';
import { measureMemory, type WatchedMemory } from '../support/process-memory';
import { count, MEBIBYTE, megabytes, megabytesPerSecond, perSecond, seconds } from '../units';
import { memoryFigures } from './memory-figures';
import { importUntil, type ImportedEvents } from './import';

export const EXPORT_STAGE = '4 export';
/** Issue 11: an export at least 70 % of the event store's own SELECT ... FORMAT rate, JSON and CSV. */
const TARGET_RATIO = 0.7;
/** Issue 11: each Node process of the distributed shape under 256 MiB; the standalone one (chdb in it) under 1 GiB. */
const PEAK_LIMIT_BYTES: Readonly<Record<Shape, number>> = { standalone: 1024 * MEBIBYTE, distributed: 256 * MEBIBYTE };
const EXPORT_TIMEOUT_MS = 60 * 60_000;
/** How long imported events may take to become queryable (the distributed shape stores them after the import completes). */
const QUERYABLE_TIMEOUT_MS = 10 * 60_000;
const FORMATS = ['json', 'csv'] as const;
type Format = (typeof FORMATS)[number];
/** The store's own rendering of the exported columns for each format: the ceiling of any export. */
const BASELINE_FORMATS: Readonly<Record<Format, string>> = { json: 'JSONEachRow', csv: 'CSVWithNames' };
/** Lines of a file that are not rows: the CSV header (the generated events hold no line breaks). */
const HEADER_LINES: Readonly<Record<Format, number>> = { json: 0, csv: 1 };

interface ExportRun {
  /** Rows the `Completed` event reports. */
  readonly rows: number;
  readonly milliseconds: number;
  /** The result file's signed link. */
  readonly url: string;
}

interface MeasuredExport {
  readonly run: ExportRun;
  readonly download: ByteCount;
  readonly watched: WatchedMemory[];
}

interface SelectRun extends ByteCount {
  readonly milliseconds: number;
}

/**
 * `POST /export/events` of `events` events, as JSON and then as CSV, each timed to COMPLETED with the
 * memory of every process of the deployment watched; then the same rows read straight from its event
 * store with `SELECT ... FORMAT JSONEachRow` and `FORMAT CSVWithNames` (the standalone server stopped
 * first: chdb binds a data folder to one process): the rates the store itself produces them at.
 */
export async function measureExport(deployment: Deployment, events: number, workDir: string, imported?: ImportedEvents): Promise<Figure[]> {
  const stage = stageOfShape(EXPORT_STAGE, deployment.shape);
  const source = await importUntil(imported ?? { account: await BenchAccount.create(deployment, 'bench export'), rows: 0, nextRow: 0 }, events, workDir);
  await untilQueryable(source.account, events);
  const runs = new Map<Format, MeasuredExport>();
  for (const format of FORMATS) runs.set(format, await measuredExport(deployment, source.account, format, events));
  const baselines = await eventStoreSelects(deployment, source.account.id, events);
  return FORMATS.flatMap((format) => {
    const { run, download, watched } = runs.get(format) as MeasuredExport;
    const baseline = baselines.get(format) as SelectRun;
    const baselineRows = baseline.lines - HEADER_LINES[format];
    const ratio = run.rows / run.milliseconds / (baselineRows / baseline.milliseconds);
    const downloadedRows = download.lines - HEADER_LINES[format];
    return [
      {
        stage,
        figure: `${format} export of ${count(events)} events, request to COMPLETED`,
        measured: `${perSecond(run.rows, run.milliseconds, 'rows')} (${seconds(run.milliseconds)})`,
        baseline: `event store SELECT ... FORMAT ${BASELINE_FORMATS[format]}: ${perSecond(baselineRows, baseline.milliseconds, 'rows')} (${seconds(baseline.milliseconds)}, ${megabytesPerSecond(baseline.bytes, baseline.milliseconds)})`,
        ratio,
        target: ratioAtLeast(ratio, TARGET_RATIO),
      },
      {
        stage,
        figure: `exported ${format} file`,
        measured:
          `${megabytes(download.bytes)}, ${count(downloadedRows)} rows (Completed says ${count(run.rows)}; ` +
          `the SELECT read ${count(baselineRows)} rows, ${megabytes(baseline.bytes)})`,
        target: { target: `${count(events)} rows each`, met: [downloadedRows, run.rows, baselineRows].every((rows) => rows === events) },
      },
      ...memoryFigures(`${stage}, ${format}`, watched, PEAK_LIMIT_BYTES[deployment.shape]),
    ];
  });
}

async function measuredExport(deployment: Deployment, account: BenchAccount, format: Format, events: number): Promise<MeasuredExport> {
  const request: EventExportRequest = { format, conditions: [], start_time: 0, limit: events };
  const { result: run, watched } = await measureMemory(deployment.processes, () => timedExport(account, request));
  return { run, download: await countBytesAndLines(await downloadStream(run.url)), watched };
}

async function timedExport(account: BenchAccount, request: EventExportRequest): Promise<ExportRun> {
  const start = performance.now();
  const acknowledgement = await account.exportEvents(request);
  const job = await account.finishedJob(acknowledgement.job_id, EXPORT_TIMEOUT_MS);
  const milliseconds = elapsedSince(start);
  const attributes = completedAttributes(job);
  const url = attributes['signed_s3_url'];
  if (typeof url !== 'string') throw new Error(`export job ${job.id}: Completed carries no signed_s3_url`);
  return { rows: countAttribute(attributes, 'rows'), milliseconds, url };
}

/**
 * Waits until the account's events are all queryable (counted through `POST /analytics/query`): an
 * import completes once its rows are accepted, and the distributed shape stores them a little later,
 * so an export started at once would measure a store still being written.
 */
async function untilQueryable(account: BenchAccount, events: number): Promise<void> {
  const deadline = Date.now() + QUERYABLE_TIMEOUT_MS;
  const body = JSON.stringify({ metrics: ['events'], start_time: '1970-01-01T00:00:00Z', end_time: '2100-01-01T00:00:00Z' });
  for (;;) {
    const response = await fetch(account.url('/analytics/query'), {
      method: 'POST',
      headers: { authorization: account.authorization, 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /analytics/query: expected 200, got ${response.status}: ${text.slice(0, 500)}`);
    const stored = Number((JSON.parse(text) as { events?: number }[])[0]?.events ?? 0);
    if (stored >= events) return;
    if (Date.now() > deadline) throw new Error(`only ${count(stored)} of ${count(events)} imported events were queryable after ${seconds(QUERYABLE_TIMEOUT_MS)}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/**
 * The exported rows as the event store reads them for an export (same table, `FINAL`, account, order
 * and limit; the columns the export has), rendered by ClickHouse in each format into a byte counter,
 * through the very client the services use.
 */
async function eventStoreSelects(deployment: Deployment, accountId: string, limit: number): Promise<Map<Format, SelectRun>> {
  const client = await deployment.openEventStore();
  try {
    // The first query loads the tables: not part of the rate.
    await client.command({ query: 'SELECT count() FROM events' });
    const runs = new Map<Format, SelectRun>();
    for (const format of FORMATS) runs.set(format, await eventStoreSelect(client, accountId, limit, BASELINE_FORMATS[format]));
    return runs;
  } finally {
    await client.close();
  }
}

async function eventStoreSelect(client: ClickHouseClient, accountId: string, limit: number, format: string): Promise<SelectRun> {
  const start = performance.now();
  const { stream } = await client.exec({
    query: `SELECT name, timestamp, user_id, attributes FROM events FINAL
             WHERE account_id = {account_id:String}
             ORDER BY user_id, timestamp, event_id LIMIT {limit:UInt64}
             FORMAT ${format}`,
    query_params: { account_id: accountId, limit },
  });
  return { ...(await countBytesAndLines(stream)), milliseconds: elapsedSince(start) };
}
