import type { Writable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { AnalyticsExportRequested, emitJobEvent, JobEventName, type PayloadOf } from '@guidepost/contracts-events';
import { ANALYTICS_DOWNLOAD_LINK_SECONDS, type AnalyticsExportStatus, type CreatedJob, JobName } from '@guidepost/contracts-http';
import { BlobStore } from '@guidepost/platform-blob';
import { exportBlobKey, reportExportCompleted, reportExportFailed, storeExportWithRetries } from '@guidepost/platform-jobs';
import { AppConfig } from '@guidepost/platform-config';
import { InjectUnitOfWork, type Transaction, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { JobRegistry } from '../../jobs/application/job-registry.service';
import { type AnalyticsRequest, analyticsSpecOf } from './analytics-spec';
import { AnalyticsStore } from './analytics-store.port';
import { budgetOf, type Concurrency, rowCapOf } from './analytics-queries.service';
import { write } from '../../events/application/output-writes';

export type AnalyticsExportPayload = PayloadOf<typeof AnalyticsExportRequested>;
/** Reports a written (or failed) export in the transaction that marks its message handled. */
export type AnalyticsExportReport = (tx: Transaction) => void;

const RESULT_FILE = { extension: 'json', contentType: 'application/json' };

/**
 * Analytics exports: the query spec of `POST /analytics/query` run as a job, its rows written as one
 * JSON array into the blob store and linked for one week, as event exports are (the same delivery).
 * The spec is validated before the 202; a job always ends, `Completed` or `Failed` with the reason.
 * Its state is told as the official CLI reads it (`queued` until a worker takes it up, `running`, `done`
 * with a link of an hour, `failed`).
 */
@Injectable()
export class AnalyticsExports {
  constructor(
    private readonly store: AnalyticsStore,
    private readonly blobs: BlobStore,
    private readonly jobs: JobRegistry,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
    private readonly config: AppConfig,
  ) {}

  /** The account's job slots, which analytics exports share with imports and event exports, and how many are busy. */
  jobSlots(accountId: string): Promise<Concurrency> {
    return this.jobs.bulkJobSlots(accountId);
  }

  /** Checks the spec (conditions included), then creates the job and announces the export, to be linked on `linkBaseUrl`. */
  async request(accountId: string, request: AnalyticsRequest, linkBaseUrl: string): Promise<CreatedJob> {
    return this.unitOfWork.run(async (tx) => {
      const job = await this.jobs.createJob({ accountId, name: JobName.ExportAnalytics }, tx);
      const payload = { accountId, jobId: job.id, spec: request, requestedAt: new Date().toISOString(), linkBaseUrl };
      tx.emit(AnalyticsExportRequested, job.id, payload, `${job.id}:analytics-export-requested`);
      return job;
    });
  }

  /** Reports that a worker has taken the export up: its state turns from `queued` to `running`. Once per job, however often delivered. */
  async start(request: AnalyticsExportPayload): Promise<void> {
    const event = { name: JobEventName.Exporting, timestamp: new Date().toISOString(), attributes: {} };
    await this.unitOfWork.run((tx) => Promise.resolve(emitJobEvent(tx, { jobId: request.jobId, accountId: request.accountId }, event)));
  }

  /** Writes the result file (no transaction held meanwhile) and returns how to report the outcome. */
  async write(request: AnalyticsExportPayload): Promise<AnalyticsExportReport> {
    const job = { jobId: request.jobId, accountId: request.accountId };
    const file = {
      key: exportBlobKey(request.accountId, request.jobId, RESULT_FILE.extension),
      contentType: RESULT_FILE.contentType,
      linkBaseUrl: this.config.jobLinkBaseUrl(request.linkBaseUrl),
    };
    let truncated = false;
    const outcome = await storeExportWithRetries(this.blobs, file, async (output) => {
      const written = await this.writeRows(request, output);
      truncated = written.truncated;
      return written.rows;
    });
    const finishedAt = new Date();
    if ('reason' in outcome) return (tx) => reportExportFailed(tx, job, outcome.reason, finishedAt);
    return (tx) =>
      reportExportCompleted(tx, job, {
        artifact: outcome,
        requestedAt: new Date(request.requestedAt),
        finishedAt,
        attributes: { truncated },
      });
  }

  /**
   * The export's state; 404 for a job that is not an analytics export of the account. A finished
   * export's `download_url` is signed afresh on each call, for an hour: a client whose link expired
   * polls again (the job's `Completed` event keeps the link of a week that `/jobs` shows). The link
   * starts with `baseUrl`, the polling request's.
   */
  async status(accountId: string, jobId: string, baseUrl: string): Promise<AnalyticsExportStatus> {
    const { job, events } = await this.jobs.jobWithEvents(accountId, jobId);
    if (job.name !== JobName.ExportAnalytics) throw notFound('Analytics export', jobId);
    const started_at = job.startedAt.toISOString();
    // The final event (`Completed` or `Failed`, recorded by `write`) carries the outcome.
    const outcome = (events.at(-1)?.attributes ?? {}) as Partial<{ reason: string; rows: number; truncated: boolean }>;
    switch (job.status) {
      case 'IN_PROGRESS': {
        const taken = events.some((event) => event.name === JobEventName.Exporting);
        return { job_id: job.id, status: taken ? 'running' : 'queued', started_at };
      }
      case 'FAILED':
        return { job_id: job.id, status: 'failed', started_at, failure_reason: outcome.reason ?? 'The export failed' };
      case 'COMPLETED': {
        const link = await this.blobs.signedUrl(
          exportBlobKey(accountId, jobId, RESULT_FILE.extension),
          ANALYTICS_DOWNLOAD_LINK_SECONDS,
          baseUrl,
        );
        return {
          job_id: job.id,
          status: 'done',
          started_at,
          download_url: link.url,
          expires_at: link.expiresAt,
          rows: outcome.rows,
          truncated: outcome.truncated === true,
        };
      }
    }
  }

  /** `[row,\n row, ...]`: at most the spec's `limit` and the export row limit, and whether there were more. */
  private async writeRows(request: AnalyticsExportPayload, output: Writable): Promise<{ rows: number; truncated: boolean }> {
    const spec = analyticsSpecOf(request.spec);
    const maxRows = rowCapOf(spec, this.config.analytics.exportMaxRows);
    const read = { accountId: request.accountId, spec, maxRows: maxRows + 1, budget: budgetOf(this.config) };
    let rows = 0;
    let truncated = false;
    await write(output, '[');
    for await (const row of this.store.rows(read)) {
      if (rows === maxRows) {
        truncated = true;
        break;
      }
      await write(output, rows === 0 ? row : `,\n${row}`);
      rows += 1;
    }
    await write(output, ']\n');
    return { rows, truncated };
  }
}

/** How to report an export given up on for good (its request dead-lettered): `Failed` with the reason. */
export function analyticsExportGivenUp(request: AnalyticsExportPayload, reason: string): AnalyticsExportReport {
  const failedAt = new Date();
  return (tx) =>
    reportExportFailed(tx, { jobId: request.jobId, accountId: request.accountId }, `The export could not be written: ${reason}`, failedAt);
}
