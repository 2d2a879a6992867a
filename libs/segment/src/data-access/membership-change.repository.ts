import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MembershipOperation, MembershipProgress } from '../domain/membership-progress';

/** One accepted add or remove request (one job) and how far it has been applied. */
export interface MembershipChange extends MembershipProgress {
  readonly id: string;
  readonly jobId: string;
  readonly accountId: string;
  readonly segmentId: string;
  readonly operation: MembershipOperation;
}

interface MembershipChangeRow {
  id: string;
  job_id: string;
  account_id: string;
  segment_id: string;
  operation: MembershipOperation;
  chunk_count: number;
  chunks_applied: number;
  ids_applied: number;
  submitted_at: Date;
  finished_at: Date | null;
}

/**
 * Membership changes and their staged chunks of user ids. Every method runs in the caller's
 * transaction: staging commits with the acceptance, applying a chunk commits with its effect.
 */
@Injectable()
export class MembershipChangeRepository {
  async stageChunk(manager: EntityManager, changeId: string, chunkIndex: number, userIds: readonly string[]): Promise<void> {
    await manager.query(`INSERT INTO segment.membership_change_chunks (change_id, chunk_index, user_ids) VALUES ($1, $2, $3::text[])`, [
      changeId,
      chunkIndex,
      userIds,
    ]);
  }

  async insert(manager: EntityManager, change: MembershipChange): Promise<void> {
    await manager.query(
      `INSERT INTO segment.membership_changes
         (id, job_id, account_id, segment_id, operation, chunk_count, chunks_applied, ids_applied, submitted_at, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        change.id,
        change.jobId,
        change.accountId,
        change.segmentId,
        change.operation,
        change.chunkCount,
        change.chunksApplied,
        change.idsApplied,
        change.submittedAt,
        change.finishedAt,
      ],
    );
  }

  /** The change of a job, locked so that its chunks record their progress one at a time. */
  async findByJobForUpdate(manager: EntityManager, jobId: string): Promise<MembershipChange | null> {
    const rows: MembershipChangeRow[] = await manager.query(`SELECT * FROM segment.membership_changes WHERE job_id = $1 FOR UPDATE`, [
      jobId,
    ]);
    return rows.length === 0 ? null : toChange(rows[0]);
  }

  /** Removes a staged chunk and returns its ids (null when it is no longer staged). */
  async takeChunk(manager: EntityManager, changeId: string, chunkIndex: number): Promise<string[] | null> {
    const [rows]: [{ user_ids: string[] }[], number] = await manager.query(
      `DELETE FROM segment.membership_change_chunks WHERE change_id = $1 AND chunk_index = $2 RETURNING user_ids`,
      [changeId, chunkIndex],
    );
    return rows.length === 0 ? null : rows[0].user_ids;
  }

  /** Drops whatever is still staged for a change that will not be applied. */
  async discardChunks(manager: EntityManager, changeId: string): Promise<void> {
    await manager.query(`DELETE FROM segment.membership_change_chunks WHERE change_id = $1`, [changeId]);
  }

  async saveProgress(manager: EntityManager, changeId: string, progress: MembershipProgress): Promise<void> {
    await manager.query(`UPDATE segment.membership_changes SET chunks_applied = $2, ids_applied = $3, finished_at = $4 WHERE id = $1`, [
      changeId,
      progress.chunksApplied,
      progress.idsApplied,
      progress.finishedAt,
    ]);
  }
}

function toChange(row: MembershipChangeRow): MembershipChange {
  return {
    id: row.id,
    jobId: row.job_id,
    accountId: row.account_id,
    segmentId: row.segment_id,
    operation: row.operation,
    chunkCount: row.chunk_count,
    chunksApplied: row.chunks_applied,
    idsApplied: row.ids_applied,
    submittedAt: row.submitted_at,
    finishedAt: row.finished_at,
  };
}
