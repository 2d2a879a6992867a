import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { PayloadOf, JobEventRecorded } from '@guidepost/contracts-events';
import { JOB_LIST_LIMIT, JobRegistryClient, type CreatedJob } from '@guidepost/contracts-http';
import type { Transaction } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-http';
import { INITIAL_JOB_STATUS, jobStatusAfter } from '../domain/job-status';
import type { JobEventEntity } from '../data-access/job-event.entity';
import type { JobEntity } from '../data-access/job.entity';
import { JobRepository } from '../data-access/job.repository';

export type RecordedJobEvent = PayloadOf<typeof JobEventRecorded>;

/**
 * The job registry: creates jobs (synchronously, so a 202's `job_url` answers at once), records the
 * events other services report about them and keeps each job's status equal to the fold of its events.
 */
@Injectable()
export class JobRegistry implements JobRegistryClient {
  private readonly logger = new Logger(JobRegistry.name);

  constructor(private readonly jobs: JobRepository) {}

  /**
   * Creates a job. The ingestion service's own work passes its transaction, so that the job and the
   * work it stands for commit together or not at all (a request that fails after validation leaves no
   * job behind); other services call without one, over the internal API.
   */
  async createJob(input: { readonly accountId: string; readonly name: string }, tx?: Transaction): Promise<CreatedJob> {
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
    if (appended && status !== job.status) await this.jobs.updateStatus(tx.manager, job.id, status);
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
