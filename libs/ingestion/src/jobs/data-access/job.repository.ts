import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { JobStatus } from '@guidepost/contracts-http';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { JobEventEntity } from './job-event.entity';
import { JobEntity } from './job.entity';

export type NewJobEvent = Omit<JobEventEntity, 'sequence'>;

/** Storage of jobs and their events. Writes that belong to a transaction take its `EntityManager`. */
@Injectable()
export class JobRepository {
  constructor(
    @InjectRepository(JobEntity, INGESTION_SCHEMA) private readonly jobs: Repository<JobEntity>,
    @InjectRepository(JobEventEntity, INGESTION_SCHEMA) private readonly events: Repository<JobEventEntity>,
  ) {}

  /** Inserts the job, in the caller's transaction when one is given. */
  async insert(job: JobEntity, manager?: EntityManager): Promise<void> {
    await (manager ? manager.getRepository(JobEntity) : this.jobs).insert(job);
  }

  /**
   * How many of the account's jobs with these names are in progress. With a transaction, it first takes
   * the account's advisory lock for the rest of it, so that two requests cannot both see room for one.
   */
  async countInProgress(accountId: string, names: readonly string[], manager?: EntityManager): Promise<number> {
    const runner = manager ?? this.jobs.manager;
    if (manager) await manager.query(`SELECT pg_advisory_xact_lock(hashtext('ingestion.jobs:' || $1))`, [accountId]);
    const [row]: { count: number }[] = await runner.query(
      `SELECT count(*)::integer AS count FROM ${INGESTION_SCHEMA}.jobs WHERE account_id = $1 AND status = 'IN_PROGRESS' AND name = ANY($2::text[])`,
      [accountId, names],
    );
    return row.count;
  }

  /** Jobs in progress per name, and how long the oldest of each has run (the partial index `jobs_in_progress` serves it). */
  async inProgressByName(): Promise<{ name: string; count: number; oldestAgeSeconds: number }[]> {
    const rows: { name: string; count: number; oldest_age_seconds: number }[] = await this.jobs.query(
      `SELECT name, count(*)::integer AS count, extract(epoch FROM now() - min(started_at))::float8 AS oldest_age_seconds
         FROM ${INGESTION_SCHEMA}.jobs WHERE status = 'IN_PROGRESS' GROUP BY name`,
    );
    return rows.map((row) => ({ name: row.name, count: row.count, oldestAgeSeconds: Math.max(0, row.oldest_age_seconds) }));
  }

  findRecent(accountId: string, limit: number): Promise<JobEntity[]> {
    return this.jobs.find({ where: { accountId }, order: { startedAt: 'DESC', id: 'DESC' }, take: limit });
  }

  findOne(accountId: string, jobId: string): Promise<JobEntity | null> {
    return this.jobs.findOneBy({ accountId, id: jobId });
  }

  eventsOf(jobId: string): Promise<JobEventEntity[]> {
    return this.events.find({ where: { jobId }, order: { sequence: 'ASC' } });
  }

  /** Locks the job's row for the transaction, so that its events get gap-free sequence numbers in order. */
  lockForUpdate(manager: EntityManager, jobId: string): Promise<JobEntity | null> {
    return manager.findOne(JobEntity, { where: { id: jobId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Appends an event after the job's last one; false when that message was already recorded. */
  async append(manager: EntityManager, event: NewJobEvent): Promise<boolean> {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO ${INGESTION_SCHEMA}.job_events (job_id, sequence, message_id, name, timestamp, attributes)
       SELECT $1, COALESCE(MAX(sequence), 0) + 1, $2, $3, $4, $5
         FROM ${INGESTION_SCHEMA}.job_events WHERE job_id = $1
       ON CONFLICT (message_id) DO NOTHING
       RETURNING sequence`,
      [event.jobId, event.messageId, event.name, event.timestamp, JSON.stringify(event.attributes)],
    );
    return inserted.length > 0;
  }

  async updateStatus(manager: EntityManager, jobId: string, status: JobStatus): Promise<void> {
    await manager.update(JobEntity, { id: jobId }, { status });
  }
}
