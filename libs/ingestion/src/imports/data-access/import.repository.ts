import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import type { RowFailure } from '../domain/row-failure';

/** The rows imports could not import (`import_failures`). */
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
}
