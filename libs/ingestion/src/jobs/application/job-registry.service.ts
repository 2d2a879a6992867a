import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { PayloadOf, JobEventRecorded } from '@guidepost/contracts-events';
import { JOB_LIST_LIMIT, JobName, JobRegistryClient, type CreatedJob } from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { InjectUnitOfWork, type Transaction, UnitOfWork } from '@guidepost/platform-database';
import { DomainError, notFound } from '@guidepost/platform-errors';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { INITIAL_JOB_STATUS, jobStatusAfter } from '../domain/job-status';
import type { JobEventEntity } from '../data-access/job-event.entity';
import type { JobEntity } from '../data-access/job.entity';
import { JobRepository } from '../data-access/job.repository';
import { JobMetrics } from './job-metrics';

export type RecordedJobEvent = PayloadOf<typeof JobEventRecorded>;

/** The jobs an account may run only so many of at once (`GUIDEPOST_BULK_JOBS_PER_ACCOUNT`): each reads or writes a whole file. */
const BULK_JOBS: readonly string[] = [
  JobName.ImportProfiles,
  JobName.ImportGroups,
  JobName.ImportEvents,
  JobName.ExportEvents,
  JobName.ExportAnalytics,
];
/** When a refused client may try again: bulk jobs take seconds to minutes. */
const BULK_JOB_RETRY_AFTER_SECONDS = 10;

/**
 * The job registry: creates jobs (synchronously, so a 202's `job_url` answers at once), records the
 * events other services report about them and keeps each job's status equal to the fold of its events.
 */
@Injectable()
export class JobRegistry implements JobRegistryClient {
  private readonly logger = new Logger(JobRegistry.name);

  constructor(
    private readonly jobs: JobRepository,
    private readonly config: AppConfig,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
    private readonly metrics: JobMetrics,
  ) {}

  /**
   * Creates a job. The ingestion service's own work passes its transaction, so that the job and the
   * work it stands for commit together or not at all (a request that fails after validation leaves no
   * job behind); other services call without one, over the internal API.
   */
  async createJob(input: { readonly accountId: string; readonly name: string }, tx?: Transaction): Promise<CreatedJob> {
    if (BULK_JOBS.includes(input.name)) await this.assertRoomForBulkJob(input.accountId, tx);
    const job: JobEntity = {
      id: randomUUID(),
      accountId: input.accountId,
      name: input.name,
      startedAt: new Date(),
      status: INITIAL_JOB_STATUS,
    };
    await this.jobs.insert(job, tx?.manager);
    return { id: job.id, startedAt: job.startedAt.toISOString() };
  }

  /**
   * Ends a job whose work was never recorded as `Failed` with the reason, at once (its creator's
   * transaction failed after creating it; see `JobsOfOneRequest`). Recorded under one message id per
   * job, so asking twice changes nothing; a job that had already ended is left as it was.
   */
  async abandonJob(input: { readonly accountId: string; readonly jobId: string; readonly reason: string }): Promise<void> {
    const event = {
      jobId: input.jobId,
      accountId: input.accountId,
      name: 'Failed' as const,
      timestamp: new Date().toISOString(),
      attributes: { reason: input.reason },
    };
    await this.unitOfWork.run((tx) => this.recordEvent(tx, `${input.jobId}:abandoned`, event));
  }

  /**
   * Throws a 429 when the account already runs as many imports and exports as it may. Called inside
   * the creating transaction (under the account's lock, so concurrent requests cannot both slip in),
   * and by an import before its upload is stored, so a refused client does not send 200 MB for nothing.
   */
  async assertRoomForBulkJob(accountId: string, tx?: Transaction): Promise<void> {
    const { limit, used: running } = await this.bulkJobSlots(accountId, tx);
    if (running < limit) return;
    throw new DomainError(
      'throttled',
      `At most ${limit} imports and exports may be in progress at once for an account, and ${running} are: retry once one has finished`,
      { retryAfterSeconds: BULK_JOB_RETRY_AFTER_SECONDS },
    );
  }

  /** The account's slots for imports and exports (`GUIDEPOST_BULK_JOBS_PER_ACCOUNT`), and how many are in progress. */
  async bulkJobSlots(accountId: string, tx?: Transaction): Promise<{ limit: number; used: number }> {
    return { limit: this.config.bulkJobsPerAccount, used: await this.jobs.countInProgress(accountId, BULK_JOBS, tx?.manager) };
  }

  /**
   * Appends the event to its job and folds it into the job's status, in the caller's transaction.
   * An event for a job this registry does not know (or of another account) can never apply: it is
   * logged and dropped rather than retried forever.
   */
  async recordEvent(tx: Transaction, messageId: string, event: RecordedJobEvent): Promise<void> {
    const job = await this.jobs.lockForUpdate(tx.manager, event.jobId);
    if (!job || job.accountId !== event.accountId) {
      this.logger.warn(`dropped job event ${event.name} (message ${messageId}): no job ${event.jobId} in account ${event.accountId}`);
      return;
    }
    const appended = await this.jobs.append(tx.manager, {
      jobId: job.id,
      messageId,
      name: event.name,
      timestamp: new Date(event.timestamp),
      attributes: event.attributes,
    });
    const status = jobStatusAfter(job.status, event.name);
    if (!appended || status === job.status) return;
    await this.jobs.updateStatus(tx.manager, job.id, status);
    // Counted before the commit: a rare transaction that fails after this counts its job twice once redelivered.
    this.metrics.ended(job.name, status);
  }

  /** The account's most recent jobs, newest first (at most `JOB_LIST_LIMIT`). */
  recentJobs(accountId: string): Promise<JobEntity[]> {
    return this.jobs.findRecent(accountId, JOB_LIST_LIMIT);
  }

  /** A job of the account with its events in order; 404 for an unknown job or one of another account. */
  async jobWithEvents(accountId: string, jobId: string): Promise<{ job: JobEntity; events: JobEventEntity[] }> {
    const job = await this.jobs.findOne(accountId, jobId);
    if (!job) throw notFound('Job', jobId);
    return { job, events: await this.jobs.eventsOf(job.id) };
  }
}
