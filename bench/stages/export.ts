import type { EventExportRequest } from '@guidepost/contracts-http';
import type { ClickHouseClient } from '@clickhouse/client';
import { CSV_RECORD, JSON_LINE, READ_SETTINGS, zoneParams } from '@guidepost/ingestion';
import { ratioAtLeast, type Figure } from '../report';
import { countBytesAndLines, type ByteCount } from '../support/byte-count';
import { elapsedSince } from '../support/clock';
import { BenchAccount, completedAttributes, countAttribute, downloadStream } from '../support/guidepost-client';
import { stageOfShape, type Deployment } from '../support/deployment';
import { measureMemory, type WatchedMemory } from '../support/process-memory';
import { count, megabytes, megabytesPerSecond, perSecond, seconds } from '../units';
import { memoryFigures, PEAK_LIMIT_BYTES } from './memory-figures';
import { importUntil, type ImportedEvents } from './import';

export const EXPORT_STAGE = '4 export';
/** Issue 11: an export at least 70 % of the event store's own SELECT ... FORMAT rate, JSON and CSV. */
const TARGET_RATIO = 0.7;
const EXPORT_TIMEOUT_MS = 60 * 60_000;
/** How long imported events may take to become queryable (the distributed shape stores them after the import completes). */
const QUERYABLE_TIMEOUT_MS = 10 * 60_000;
const FORMATS = ['json', 'csv'] as const;
type Format = (typeof FORMATS)[number];
/** The store's own rendering of the exported columns for each format: the ceiling of any export. */
const BASELINE_FORMATS: Readonly<Record<Format, string>> = { json: 'JSONEachRow', csv: 'CSVWithNames' };
/** The SQL expression each export format renders a record with, in the store. */
const RECORDS: Readonly<Record<Format, string>> = { json: JSON_LINE, csv: CSV_RECORD };
/** The rows an export of the account reads, as the export reads them: `FINAL`, in the table's order, up to the limit. */
const EXPORTED_ROWS = 'FROM events FINAL WHERE account_id = {account_id:String} ORDER BY user_id, timestamp, event_id LIMIT {limit:UInt64}';
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

interface Baselines {
  /** The exported columns in the store's own format (`FORMAT JSONEachRow`, `FORMAT CSVWithNames`): the target's baseline. */
  readonly storeFormat: SelectRun;
  /** The export's own records (one cell per attribute key in CSV) rendered by one SELECT: what making the same file costs the store. */
  readonly sameRecords: SelectRun;
}

/**
 * `POST /export/events` of `events` events, as JSON and then as CSV, each timed to COMPLETED with the
 * memory of every process of the deployment watched; then the same rows read straight from its event
 * store with `SELECT ... FORMAT JSONEachRow` and `FORMAT CSVWithNames` (the standalone server stopped
 * first: chdb binds a data folder to one process): the rates the store itself produces them at. And
 * once more with the export's own record expressions in one SELECT, which for CSV extract a cell per
 * attribute key: what the same file costs the store, so Guidepost's own share (planning, pages, the
 * upload) is told apart from the format's.
 */
export async function measureExport(deployment: Deployment, events: number, workDir: string, imported?: ImportedEvents): Promise<Figure[]> {
  const stage = stageOfShape(EXPORT_STAGE, deployment.shape);
  const source = await importUntil(
    imported ?? { account: await BenchAccount.create(deployment, 'bench export'), rows: 0, nextRow: 0 },
    events,
    workDir,
  );
  await source.account.untilQueryable(events, QUERYABLE_TIMEOUT_MS);
  const runs = new Map<Format, MeasuredExport>();
  for (const format of FORMATS) runs.set(format, await measuredExport(deployment, source.account, format, events));
  const baselines = await eventStoreSelects(deployment, source.account.id, events);
  return FORMATS.flatMap((format) => {
    const { run, download, watched } = runs.get(format) as MeasuredExport;
    const { storeFormat: baseline, sameRecords } = baselines.get(format) as Baselines;
    const baselineRows = baseline.lines - HEADER_LINES[format];
    const ratio = run.rows / run.milliseconds / (baselineRows / baseline.milliseconds);
    const sameRecordsRatio = run.rows / run.milliseconds / (sameRecords.lines / sameRecords.milliseconds);
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
        figure: `${format} export against the store making the same records`,
        measured: perSecond(run.rows, run.milliseconds, 'rows'),
        baseline: `one SELECT of the export's records: ${perSecond(sameRecords.lines, sameRecords.milliseconds, 'rows')} (${seconds(sameRecords.milliseconds)}, ${megabytes(sameRecords.bytes)})`,
        ratio: sameRecordsRatio,
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
 * The exported rows as the event store reads them for an export (same table, `FINAL`, account, order
 * and limit; the columns the export has), rendered by ClickHouse in each format into a byte counter,
 * through the very client the services use.
 */
async function eventStoreSelects(deployment: Deployment, accountId: string, limit: number): Promise<Map<Format, Baselines>> {
  const store = await deployment.openEventStore();
  const { client } = store;
  try {
    // The first query loads the tables: not part of the rate.
    await client.command({ query: 'SELECT count() FROM events' });
    const runs = new Map<Format, Baselines>();
    for (const format of FORMATS) {
      runs.set(format, {
        storeFormat: await eventStoreSelect(client, accountId, limit, BASELINE_FORMATS[format]),
        sameRecords: await sameRecordsSelect(client, accountId, limit, format),
      });
    }
    return runs;
  } finally {
    await store.close();
  }
}

/**
 * The export's records of the same rows in one SELECT, in UTC, with the export's read settings; for
 * CSV the attribute keys are found first (as the export's plan finds them), and that query is timed too.
 */
async function sameRecordsSelect(client: ClickHouseClient, accountId: string, limit: number, format: Format): Promise<SelectRun> {
  const start = performance.now();
  let attributeKeys: string[] = [];
  if (format === 'csv') {
    const keys = await client.query({
      query: `SELECT groupUniqArrayArray(JSONExtractKeys(attributes)) AS attribute_keys FROM (SELECT attributes ${EXPORTED_ROWS}) ${READ_SETTINGS}`,
      query_params: { account_id: accountId, limit },
      format: 'JSONEachRow',
    });
    attributeKeys = (await keys.json<{ attribute_keys: string[] }>())[0]?.attribute_keys ?? [];
  }
  const { stream } = await client.exec({
    query: `SELECT ${RECORDS[format]} ${EXPORTED_ROWS} ${READ_SETTINGS} FORMAT TabSeparatedRaw`,
    query_params: { account_id: accountId, limit, attribute_keys: attributeKeys, ...zoneParams(0) },
  });
  return { ...(await countBytesAndLines(stream)), milliseconds: elapsedSince(start) };
}

async function eventStoreSelect(client: ClickHouseClient, accountId: string, limit: number, format: string): Promise<SelectRun> {
  const start = performance.now();
  const { stream } = await client.exec({
    query: `SELECT name, timestamp, user_id, event_id, attributes ${EXPORTED_ROWS} FORMAT ${format}`,
    query_params: { account_id: accountId, limit },
  });
  return { ...(await countBytesAndLines(stream)), milliseconds: elapsedSince(start) };
}
