import { Readable } from 'node:stream';
import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { emitJobEvent, ImportKind, ImportStaged, type JobEventDraft, type PayloadOf } from '@guidepost/contracts-events';
import { jobUrlOf } from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { BlobStore, type OpenedBlob } from '@guidepost/platform-blob';
import { TransientFailure } from '@guidepost/platform-failures';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { Counter } from 'prom-client';
import { DomainError } from '@guidepost/platform-errors';
import {
  csvRowBatches,
  type CsvRow,
  isRecordFailure,
  ndjsonValueBatches,
  type NdjsonValue,
  type RecordFailure,
} from '@guidepost/platform-http';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { eventsAcceptedCounter } from '../../events/application/events-accepted';
import { EventWrites } from '../../events/application/event-writes';
import { FilteredItems } from '../../filtering/application/filtered-items';
import { FilteringRules } from '../../filtering/application/filtering-rules.service';
import { JobMetrics } from '../../jobs/application/job-metrics';
import { JobRepository } from '../../jobs/data-access/job.repository';
import { ImportBatch, type KeptRows } from '../domain/import-batch';
import { importCompletedEvent, importFailedEvent, ImportTally, ingestingEvent } from '../domain/import-progress';
import type { RowOutcome } from '../domain/import-rows';
import type { RowFailure, RowProblem } from '../domain/row-failure';
import { UnreadableFile } from '../domain/unreadable-file';
import { ImportBatchWriter } from './import-batch-writer';
import { IMPORT_JOB_NAMES } from './import-staging.service';
import { importTarget, type ImportTarget, type StoredRows } from './import-targets';
import { assertUtf8 } from './upload-content';

export type StagedImport = PayloadOf<typeof ImportStaged>;

/** Batches the worker may have written that the outbox relay has not published yet. */
export const BATCHES_AHEAD = 4;
/** How many of the latest batch messages are watched while waiting for the relay. */
const WATCHED_MESSAGES = 64;
const RELAY_POLL_MIN_MS = 10;
const RELAY_POLL_MAX_MS = 50;

/** The state of one run of one import. */
interface ImportRun {
  readonly staged: StagedImport;
  readonly stagedAt: Date;
  readonly tally: ImportTally;
  readonly failuresUrl: string;
  /** Ids of the batch messages written so far, in order. */
  readonly messageIds: string[];
  /** The stored batch being inserted, if any: the next one is read meanwhile, and written once it is in. */
  storing: Promise<void>;
}

/** The record a reader hands out, whatever the format. */
type ReadRecord = NdjsonValue | CsvRow | RecordFailure;

/**
 * Imports a staged upload as a pipeline: reads the file from the blob store as it goes (memory holds
 * a batch or two, never the file), judges every row on its own (`RowOutcome` values), and writes
 * batches of valid rows and failures. Events are inserted into the event store by the worker itself,
 * one batch inserting while the next is read; profile rows are published (see `ImportBatchWriter`)
 * at most `BATCHES_AHEAD` batches ahead of the outbox relay, so a slow consumer slows the import
 * instead of piling batches up. Everything it emits has a
 * deterministic id, so a run that is repeated (redelivery, a crash) reports the same outcome and
 * publishes nothing twice. A file that cannot be read as its format fails the job with the reason;
 * anything else that goes wrong (the database, the blob store) is thrown, and the message is
 * delivered again later.
 */
@Injectable()
export class ImportWorker implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ImportWorker.name);
  private stopping = false;
  private readonly acceptedEvents: Counter<'intake'>;

  constructor(
    private readonly blobs: BlobStore,
    private readonly jobs: JobRepository,
    private readonly writer: ImportBatchWriter,
    private readonly eventWrites: EventWrites,
    private readonly filtering: FilteringRules,
    private readonly filtered: FilteredItems,
    private readonly config: AppConfig,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
    private readonly jobMetrics: JobMetrics,
    metrics: MetricsRegistry,
  ) {
    this.acceptedEvents = eventsAcceptedCounter(metrics);
  }

  /** The process is stopping: a running import stops at its next batch and is taken up again after the restart. */
  beforeApplicationShutdown(): void {
    this.stopping = true;
  }

  async run(staged: StagedImport): Promise<void> {
    const job = await this.jobs.findOne(staged.accountId, staged.jobId);
    if (job?.status !== 'IN_PROGRESS' || (await this.hasReportedOutcome(staged.jobId))) {
      this.logger.log(`import job ${staged.jobId} is ${job ? job.status : 'unknown'} or has reported its outcome: nothing to do`);
      await this.discardUpload(staged);
      return;
    }
    const run = this.startRun(staged);
    this.logger.log(`importing ${staged.kind} of job ${staged.jobId} (${staged.bytes} bytes of ${staged.format})`);
    try {
      await this.importFile(run);
    } catch (error) {
      // Any other failure is the consumer's to classify: retried while a store is down, given up on (`giveUp`) when permanent.
      if (!(error instanceof UnreadableFile)) throw error;
      this.logger.warn(`import job ${staged.jobId} failed: ${error.detail}`);
      await this.report(run, importFailedEvent(error.detail, run.tally, run.stagedAt, new Date(), run.failuresUrl));
      await this.discardUpload(staged);
      return;
    }
    // Completed once every batch is published (or given up on): the rows are handed over by then.
    await this.waitForRelay(run, run.messageIds, 0);
    run.tally.requestsFailed = run.messageIds.length === 0 ? 0 : (await this.unitOfWork.delivery(run.messageIds)).dead;
    const { tally } = run;
    this.logger.log(
      `imported job ${staged.jobId}: ${tally.completed} rows, ${tally.failed} failed, ${tally.filtered} filtered, ${tally.requestsFailed} batches not published`,
    );
    await this.report(run, importCompletedEvent(tally, run.stagedAt, new Date(), run.failuresUrl));
    await this.discardUpload(staged);
  }

  /**
   * The import was given up on (its message dead-lettered after a permanent failure): the job ends
   * `Failed` with the reason, so that no client waits for it for ever. A transient failure (a store
   * down) never gets here: the import is retried until the store is back.
   */
  async giveUp(staged: StagedImport, reason: string): Promise<void> {
    const run = this.startRun(staged);
    this.logger.warn(`import job ${staged.jobId} was given up on: ${reason}`);
    await this.report(
      run,
      importFailedEvent(`The import could not be completed: ${reason}`, run.tally, run.stagedAt, new Date(), run.failuresUrl),
    );
    await this.discardUpload(staged);
  }

  /**
   * Deletes the staged upload once the job's outcome is reported (committed to the outbox), so uploads
   * never pile up in the blob store. A redelivered message finds the outcome reported and deletes it
   * again (a no-op); should the delete fail (the store is down), the message is delivered again.
   */
  private async discardUpload(staged: StagedImport): Promise<void> {
    await this.blobs.delete(staged.blobKey);
  }

  private startRun(staged: StagedImport): ImportRun {
    return {
      staged,
      stagedAt: new Date(staged.stagedAt),
      tally: new ImportTally(staged.bytes),
      failuresUrl: `${jobUrlOf(this.config.jobLinkBaseUrl(staged.linkBaseUrl), staged.accountId, staged.jobId)}/failures`,
      messageIds: [],
      storing: Promise.resolve(),
    };
  }

  private async importFile(run: ImportRun): Promise<void> {
    const { staged } = run;
    const checked = await this.openUpload(staged.blobKey);
    try {
      await assertUtf8(checked.stream);
    } finally {
      checked.stream.destroy();
    }
    const upload = await this.openUpload(staged.blobKey);
    const counted = Readable.from(countedBytes(upload.stream, run.tally), { objectMode: false });
    // A reader that stops early (a bad CSV header) no longer listens: a late error of the file must not
    // become an unhandled 'error' event, which would end the process. Destroying `counted` below ends the
    // file's stream too.
    counted.on('error', () => undefined);
    try {
      const origin = { accountId: staged.accountId, jobId: staged.jobId, stagedAt: staged.stagedAt };
      const target = importTarget(staged.kind, origin, this.eventWrites);
      // The targets differ in their row type only; the worker hands rows from the mapper to the publisher untouched.
      const anyTarget = target as ImportTarget<unknown>;
      if (staged.format === 'ndjson') await this.importRecords(run, anyTarget, ndjsonValueBatches(counted), ndjsonRowReader(anyTarget));
      else await this.importRecords(run, anyTarget, csvRowBatches(counted), csvRowReader(anyTarget));
    } finally {
      counted.destroy();
    }
  }

  private async openUpload(blobKey: string): Promise<OpenedBlob> {
    const upload = await this.blobs.open(blobKey);
    if (!upload) throw new UnreadableFile(`the staged upload ${blobKey} is missing from the blob store`);
    return upload;
  }

  private async importRecords<T, R extends ReadRecord>(
    run: ImportRun,
    target: ImportTarget<T>,
    records: AsyncIterable<R[]>,
    outcomeOf: (record: R) => RowOutcome<T> | undefined,
  ): Promise<void> {
    let batch = new ImportBatch<T>(0, target.batch);
    try {
      // The next chunk of the file is read only once the rows before it are handed over: backpressure.
      for await (const chunk of records) {
        for (const record of chunk) {
          const outcome = this.guarded(run, record, outcomeOf);
          if (outcome === undefined) continue;
          batch.add(record.line, outcome);
          if (batch.isFull) {
            await this.flush(run, target, batch);
            batch = new ImportBatch<T>(batch.index + 1, target.batch);
          }
        }
      }
      if (batch.rows > 0) await this.flush(run, target, batch);
      await run.storing;
    } finally {
      // Whatever stopped the reading, the batch being inserted ends before the run reports anything.
      await Promise.allSettled([run.storing]);
    }
  }

  /** A row whose mapping throws fails alone (a 400 with its detail, anything else as an internal error); only an unreadable file fails the file. */
  private guarded<T, R extends ReadRecord>(
    run: ImportRun,
    record: R,
    outcomeOf: (record: R) => RowOutcome<T> | undefined,
  ): RowOutcome<T> | undefined {
    try {
      return outcomeOf(record);
    } catch (error) {
      if (error instanceof UnreadableFile) throw error;
      if (error instanceof DomainError && error.code === 'invalid_request') return { field: null, reason: error.detail };
      this.logger.error(
        `import job ${run.staged.jobId}, line ${record.line}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      return { field: null, reason: 'could not be imported (internal error)' };
    }
  }

  private async flush<T>(run: ImportRun, target: ImportTarget<T>, batch: ImportBatch<T>): Promise<void> {
    if (this.stopping) throw new ImportInterruptedError(run.staged.jobId);
    const kept = batch.kept(await this.droppedNameUnderRules(target, run.staged.accountId));
    const { delivery } = target;
    if (delivery.kind === 'published') {
      await this.waitForRelay(run, run.messageIds.slice(-WATCHED_MESSAGES), BATCHES_AHEAD - 1);
      const batchToWrite = {
        jobId: run.staged.jobId,
        messageId: `${run.staged.jobId}:batch:${batch.index}`,
        items: kept.items,
        lines: kept.lines,
        failures: batch.failures,
      };
      const written = await this.writer.write(batchToWrite, delivery.publish);
      run.messageIds.push(...written.messageIds);
      await this.counted(run, batch, kept, written.unstorable);
      return;
    }
    // One batch inserts while the next is read: the store and the reading each run at their own pace.
    await run.storing;
    run.storing = this.stored(run, delivery, batch, kept);
    // Its failure is thrown where the run next waits for it (above, or at the end of the file).
    run.storing.catch(() => undefined);
  }

  /** Inserts a batch's kept rows into the store, then records its failures and counts it. */
  private async stored<T>(run: ImportRun, delivery: StoredRows<T>, batch: ImportBatch<T>, kept: KeptRows<T>): Promise<void> {
    if (kept.items.length > 0) await delivery.store(kept.items);
    await this.writer.recordFailures(run.staged.jobId, batch.failures);
    await this.counted(run, batch, kept, []);
  }

  /** Counts a written batch into the run's tally and metrics, and reports progress at each step of it. */
  private async counted<T>(run: ImportRun, batch: ImportBatch<T>, kept: KeptRows<T>, unstorable: readonly RowFailure[]): Promise<void> {
    const { staged, tally } = run;
    tally.rowsRead += batch.rows;
    const accepted = kept.items.length - unstorable.length;
    tally.completed += accepted;
    this.jobMetrics.handledRows(IMPORT_JOB_NAMES[staged.kind], batch.rows);
    if (staged.kind === ImportKind.Events) this.acceptedEvents.inc({ intake: 'import' }, accepted);
    tally.recordFailures([...batch.failures, ...unstorable].sort((a, b) => a.line - b.line));
    tally.filtered += kept.droppedNames.length;
    this.filtered.record('import', 'event', staged.accountId, kept.droppedNames);
    const step = tally.progressStepToReport(Date.now());
    if (step !== undefined) await this.report(run, ingestingEvent(tally, new Date()), step);
  }

  /** How the account's current rules name the items they drop (read per batch, so a change applies within the import). */
  private async droppedNameUnderRules<T>(
    target: ImportTarget<T>,
    accountId: string,
  ): Promise<((item: T) => string | undefined) | undefined> {
    const { droppedName } = target;
    if (!droppedName) return undefined;
    const rules = await this.filtering.rulesFor(accountId);
    return (item) => droppedName(rules, item);
  }

  /** Waits until at most `atMost` of the messages are still to be published by the relay. */
  private async waitForRelay(run: ImportRun, messageIds: readonly string[], atMost: number): Promise<void> {
    if (messageIds.length <= atMost) return;
    for (let delay = RELAY_POLL_MIN_MS; ; delay = Math.min(delay * 2, RELAY_POLL_MAX_MS)) {
      if ((await this.unitOfWork.delivery(messageIds)).pending <= atMost) return;
      // The relay stops with the process: waiting for it then would hold the shutdown up.
      if (this.stopping) throw new ImportInterruptedError(run.staged.jobId);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /**
   * Whether the job's outcome (`<job>:Completed` or `<job>:Failed`) is already in the outbox: the job
   * registry may not have folded it yet, but the import is over and its staged upload may go.
   * (Published messages are pruned after the deduplication window, by when the registry has folded it.)
   */
  private async hasReportedOutcome(jobId: string): Promise<boolean> {
    return (await this.unitOfWork.delivery([`${jobId}:Completed`, `${jobId}:Failed`])).recorded > 0;
  }

  /** Reports a job event; `Ingesting` repeats, once per `step` of progress. */
  private async report(run: ImportRun, event: JobEventDraft, step?: number): Promise<void> {
    await this.unitOfWork.run((tx) => Promise.resolve(emitJobEvent(tx, run.staged, event, step)));
  }
}

/** What one NDJSON line comes to: a row to import, or the row's problem. */
function ndjsonRowReader<T>(target: ImportTarget<T>): (record: NdjsonValue | RecordFailure) => RowOutcome<T> {
  return (record) => (isRecordFailure(record) ? unreadable(record) : target.rows.fromJson(record.value, record.line));
}

/**
 * What one CSV row comes to: a row to import, its problem, or nothing for the header, which sets how
 * the rows under it are read. A header that cannot be read fails the file.
 */
function csvRowReader<T>(target: ImportTarget<T>): (record: CsvRow | RecordFailure) => RowOutcome<T> | undefined {
  let rowOf: ((cells: readonly string[], line: number) => RowOutcome<T>) | undefined;
  return (record) => {
    if (rowOf === undefined) {
      if (isRecordFailure(record)) throw new UnreadableFile(`line ${record.line}: the header cannot be read: ${record.error}`);
      rowOf = csvMapperOf(target, record);
      return undefined;
    }
    return isRecordFailure(record) ? unreadable(record) : rowOf(record.cells, record.line);
  };
}

/** How the rows under a header are read; a header that names no usable columns makes the file unreadable. */
function csvMapperOf<T>(target: ImportTarget<T>, header: CsvRow): (cells: readonly string[], line: number) => RowOutcome<T> {
  try {
    return target.rows.csvMapper(header);
  } catch (error) {
    if (error instanceof DomainError) throw new UnreadableFile(error.detail);
    throw error;
  }
}

function unreadable(record: RecordFailure): RowProblem {
  return { field: null, reason: record.error };
}

/** The bytes of the upload as they are read, counted into the tally (progress is measured in bytes). */
async function* countedBytes(stream: Readable, tally: ImportTally): AsyncGenerator<Buffer> {
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    tally.bytesRead += chunk.length;
    yield chunk;
  }
}

/**
 * The process is stopping; the import is taken up again (from the start, idempotently) after the
 * restart. Transient: the message must be delivered again, never given up on.
 */
class ImportInterruptedError extends TransientFailure {
  constructor(jobId: string) {
    super(`import job ${jobId} was interrupted by the shutdown; it resumes after the restart`);
    this.name = 'ImportInterruptedError';
  }
}
