import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import type { RowFailure } from '../domain/row-failure';

/** The rows imports could not import (`import_failures`), and the state of an import's own outbox messages. */
@Injectable()
export class ImportRepository {
  constructor(@InjectDataSource(INGESTION_SCHEMA) private readonly dataSource: DataSource) {}

  /** Records failures of a job; a line recorded before (a restarted worker) is overwritten, not duplicated. */
  async upsert(manager: EntityManager, jobId: string, failures: readonly RowFailure[]): Promise<void> {
    if (failures.length === 0) return;
    await manager.query(
      `INSERT INTO ${INGESTION_SCHEMA}.import_failures (job_id, line, field, reason)
       SELECT $1, line, field, reason FROM unnest($2::integer[], $3::text[], $4::text[]) AS failure (line, field, reason)
       ON CONFLICT (job_id, line) DO UPDATE SET field = EXCLUDED.field, reason = EXCLUDED.reason`,
      [jobId, failures.map((failure) => failure.line), failures.map((failure) => failure.field), failures.map((failure) => failure.reason)],
    );
  }

  /**
   * The job's failures after `afterLine` in line order, at most `limit` (keyset pagination over the
   * primary key, outside any transaction, so a long download holds no snapshot).
   */
  async page(jobId: string, afterLine: number, limit: number): Promise<RowFailure[]> {
    return this.dataSource.query(
      `SELECT line, field, reason FROM ${INGESTION_SCHEMA}.import_failures
        WHERE job_id = $1 AND line > $2 ORDER BY line LIMIT $3`,
      [jobId, afterLine, limit],
    );
  }

  /**
   * Whether the job's outcome (`<job>:Completed` or `<job>:Failed`) is already in the outbox: the job
   * registry may not have folded it yet, but the import is over and its staged upload may go.
   * (Published messages are pruned after the deduplication window, by when the registry has folded it.)
   */
  async hasReportedOutcome(jobId: string): Promise<boolean> {
    const [row]: { reported: boolean }[] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM ${INGESTION_SCHEMA}.outbox_messages WHERE id = ANY($1::text[])) AS reported`,
      [[`${jobId}:Completed`, `${jobId}:Failed`]],
    );
    return row.reported;
  }

  /**
   * Of the given outbox messages, how many the relay has still to publish and how many it gave up on
   * (dead-lettered). The import worker watches its own batches this way, to stay at most a few
   * batches ahead of the relay and to count the batches that could not be published.
   */
  async outboxState(messageIds: readonly string[]): Promise<{ pending: number; dead: number }> {
    const [row]: { pending: number; dead: number }[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE published_at IS NULL AND dead_at IS NULL)::integer AS pending,
              count(*) FILTER (WHERE dead_at IS NOT NULL)::integer AS dead
         FROM ${INGESTION_SCHEMA}.outbox_messages
        WHERE id = ANY($1::text[])`,
      [messageIds],
    );
    return row;
  }
}
