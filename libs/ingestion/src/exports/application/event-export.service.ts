import { Injectable } from '@nestjs/common';
import { EventExportRequested } from '@guidepost/contracts-events';
import { type CreatedJob, type ExportCondition, JobName } from '@guidepost/contracts-http';
import { BlobStore } from '@guidepost/platform-blob';
import { AppConfig } from '@guidepost/platform-config';
import { exportBlobKey, reportExportCompleted, reportExportFailed, storeExportWithRetries } from '@guidepost/platform-jobs';
import { InjectUnitOfWork, type Transaction, UnitOfWork } from '@guidepost/platform-database';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { JobMetrics } from '../../jobs/application/job-metrics';
import { JobRegistry } from '../../jobs/application/job-registry.service';
import { EventStore, type ExportQuery } from '../../events/application/event-store.port';
import { compileExportConditions } from '../../events/domain/export-conditions';
import { EXPORT_FILE_TYPES } from '../domain/export-file';
import { type ExportRequestedPayload, type ExportRequestFields, resolveExportRequest } from './export-request';

/** Reports a written (or failed) export in the transaction that marks its message handled. */
export type ExportReport = (tx: Transaction) => void;

/**
 * Bulk event exports: accepting the request (everything a client can get wrong is answered before the
 * 202), then streaming the matching events from the event store into the blob store and reporting the
 * outcome. A job always ends: `Completed` with the one-week link, or `Failed` with the reason.
 */
@Injectable()
export class EventExportService {
  constructor(
    private readonly events: EventStore,
    private readonly blobs: BlobStore,
    private readonly jobs: JobRegistry,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
    private readonly jobMetrics: JobMetrics,
    private readonly config: AppConfig,
  ) {}

  /** Checks the conditions and the range, then creates the job and announces the export, to be linked on `linkBaseUrl`. */
  async request(accountId: string, request: ExportRequestFields, linkBaseUrl: string): Promise<CreatedJob> {
    // Both throw a 400 naming the condition or field at fault; nothing is created before they pass.
    compileExportConditions(request.conditions);
    const resolved = resolveExportRequest(request);
    return this.unitOfWork.run(async (tx) => {
      const job = await this.jobs.createJob({ accountId, name: JobName.ExportEvents }, tx);
      const payload = { accountId, jobId: job.id, ...resolved, requestedAt: new Date().toISOString(), linkBaseUrl };
      tx.emit(EventExportRequested, job.id, payload, `${job.id}:export-requested`);
      return job;
    });
  }

  /**
   * Writes the export file (no transaction is held meanwhile, however long the export runs) and
   * returns how to report the outcome. Message ids of the report are deterministic, so an export
   * written again after a redelivery can never complete its job twice.
   */
  async write(request: ExportRequestedPayload): Promise<ExportReport> {
    const job = { jobId: request.jobId, accountId: request.accountId };
    const type = EXPORT_FILE_TYPES[request.format];
    const file = {
      key: exportBlobKey(request.accountId, request.jobId, type.extension),
      contentType: type.contentType,
      linkBaseUrl: this.config.jobLinkBaseUrl(request.linkBaseUrl),
    };
    const query = exportQueryOf(request);
    const outcome = await storeExportWithRetries(this.blobs, file, (output) => this.events.export(query, output));
    const finishedAt = new Date();
    if ('reason' in outcome) return (tx) => reportExportFailed(tx, job, outcome.reason, finishedAt);
    this.jobMetrics.handledRows(JobName.ExportEvents, outcome.rows);
    return (tx) =>
      reportExportCompleted(tx, job, {
        artifact: outcome,
        requestedAt: new Date(request.requestedAt),
        finishedAt,
        attributes: { format: request.format },
        mail: { to: request.emails, subject: 'Event export ready', what: `The ${request.format.toUpperCase()} event export` },
      });
  }
}

/** How to report an export given up on for good (its request dead-lettered): `Failed` with the reason. */
export function exportGivenUp(request: ExportRequestedPayload, reason: string): ExportReport {
  const job = { jobId: request.jobId, accountId: request.accountId };
  const failedAt = new Date();
  return (tx) => reportExportFailed(tx, job, `The export could not be written: ${reason}`, failedAt);
}

function exportQueryOf(request: ExportRequestedPayload): ExportQuery {
  return {
    accountId: request.accountId,
    format: request.format,
    // Compiled (so checked against the grammar) before the request was accepted.
    conditions: request.conditions as ExportCondition[],
    startTime: new Date(request.startTime),
    ...(request.endTime === undefined ? {} : { endTime: new Date(request.endTime) }),
    timeZoneMinutes: request.timeZoneMinutes,
    limit: request.limit,
    offset: request.offset,
    receivedBy: new Date(request.requestedAt),
  };
}
