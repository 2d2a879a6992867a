import type { EventExportRequest } from '@guidepost/contracts-http';
import { ratioAtLeast, type Figure } from '../report';
import { countBytesAndLines, type ByteCount } from '../support/byte-count';
import { elapsedSince } from '../support/clock';
import { BenchAccount, completedAttributes, countAttribute, downloadStream } from '../support/guidepost-client';
import { stageOfShape, type Deployment } from '../support/deployment';
import { measureMemory } from '../support/process-memory';
import { count, MEBIBYTE, megabytes, megabytesPerSecond, perSecond, seconds } from '../units';
import { memoryFigures } from './memory-figures';
import { importUntil, type ImportedEvents } from './import';

export const EXPORT_STAGE = '4 export';
/** docs/performance.md: an export at least 50 % of the event store's own SELECT ... FORMAT rate, under 256 MB. */
const TARGET_RATIO = 0.5;
const MEMORY_LIMIT_BYTES = 256 * MEBIBYTE;
const EXPORT_TIMEOUT_MS = 60 * 60_000;

interface ExportRun {
  /** Rows the `Completed` event reports. */
  readonly rows: number;
  readonly milliseconds: number;
  /** The result file's signed link. */
  readonly url: string;
}

interface SelectRun extends ByteCount {
  readonly milliseconds: number;
}

/**
 * `POST /export/events` of `events` events (json) timed to COMPLETED, with the memory of every
 * process of the deployment watched; then the same rows read straight from its event store with
 * `SELECT ... FORMAT JSONEachRow` (the standalone server stopped first: chdb binds a data folder to
 * one process): the rate the store itself produces them at, the ceiling of any export.
 */
export async function measureExport(deployment: Deployment, events: number, workDir: string, imported?: ImportedEvents): Promise<Figure[]> {
  const stage = stageOfShape(EXPORT_STAGE, deployment.shape);
  const source = await importUntil(imported ?? { account: await BenchAccount.create(deployment, 'bench export'), rows: 0, nextRow: 0 }, events, workDir);
  const request: EventExportRequest = { format: 'json', conditions: [], start_time: 0, limit: events };
  const { result: exported, watched } = await measureMemory(deployment.processes, () => timedExport(source.account, request));
  const download = await countBytesAndLines(await downloadStream(exported.url));
  const baseline = await eventStoreSelect(deployment, source.account.id, events);
  const ratio = exported.rows / exported.milliseconds / (baseline.lines / baseline.milliseconds);
  return [
    {
      stage,
      figure: `json export of ${count(events)} events, request to COMPLETED`,
      measured: `${perSecond(exported.rows, exported.milliseconds, 'rows')} (${seconds(exported.milliseconds)})`,
      baseline: `event store SELECT ... FORMAT JSONEachRow: ${perSecond(baseline.lines, baseline.milliseconds, 'rows')} (${seconds(baseline.milliseconds)}, ${megabytesPerSecond(baseline.bytes, baseline.milliseconds)})`,
      ratio,
      target: ratioAtLeast(ratio, TARGET_RATIO),
    },
    {
      stage,
      figure: 'exported file',
      measured:
        `${megabytes(download.bytes)}, ${count(download.lines)} lines (Completed says ${count(exported.rows)} rows; ` +
        `the SELECT read ${count(baseline.lines)} rows, ${megabytes(baseline.bytes)})`,
      target: { target: `${count(events)} rows each`, met: [download.lines, exported.rows, baseline.lines].every((rows) => rows === events) },
    },
    ...memoryFigures(stage, watched, MEMORY_LIMIT_BYTES),
  ];
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
 * The exported rows as the event store reads them for an export (same table, `FINAL`, account, order
 * and limit; the columns the JSON export has), rendered by ClickHouse as JSONEachRow into a byte
 * counter, through the very client the services use.
 */
async function eventStoreSelect(deployment: Deployment, accountId: string, limit: number): Promise<SelectRun> {
  const client = await deployment.openEventStore();
  try {
    // The first query loads the tables: not part of the rate.
    await client.command({ query: 'SELECT count() FROM events' });
    const start = performance.now();
    const { stream } = await client.exec({
      query: `SELECT name, timestamp, user_id, attributes FROM events FINAL
               WHERE account_id = {account_id:String}
               ORDER BY timestamp, event_id, user_id LIMIT {limit:UInt64}
               FORMAT JSONEachRow`,
      query_params: { account_id: accountId, limit },
    });
    return { ...(await countBytesAndLines(stream)), milliseconds: elapsedSince(start) };
  } finally {
    await client.close();
  }
}
