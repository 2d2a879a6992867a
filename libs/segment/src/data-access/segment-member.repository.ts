import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { SEGMENT_SCHEMA } from './segment-schema';

/** Membership rows. Adding an existing member and removing an absent one both change nothing. */
@Injectable()
export class SegmentMemberRepository {
  constructor(@InjectDataSource(SEGMENT_SCHEMA) private readonly dataSource: DataSource) {}

  async add(manager: EntityManager, accountId: string, segmentId: string, userIds: readonly string[]): Promise<void> {
    await manager.query(
      `INSERT INTO segment.segment_members (account_id, segment_id, user_id)
       SELECT $1, $2, user_id FROM unnest($3::text[]) AS ids (user_id)
       ON CONFLICT (segment_id, user_id) DO NOTHING`,
      [accountId, segmentId, userIds],
    );
  }

  async remove(manager: EntityManager, accountId: string, segmentId: string, userIds: readonly string[]): Promise<void> {
    await manager.query(`DELETE FROM segment.segment_members WHERE account_id = $1 AND segment_id = $2 AND user_id = ANY($3::text[])`, [
      accountId,
      segmentId,
      userIds,
    ]);
  }

  /**
   * The members after `afterUserId` in user id order, at most `limit` of them (keyset pagination over
   * the primary key). Read outside any transaction: a long export holds no locks and no snapshot.
   */
  async page(accountId: string, segmentId: string, afterUserId: string | null, limit: number): Promise<string[]> {
    // Two statements rather than `$3 IS NULL OR user_id > $3`, which would keep a generic plan from
    // seeking the primary key to the page start.
    const rows: { user_id: string }[] =
      afterUserId === null
        ? await this.dataSource.query(
            `SELECT user_id FROM segment.segment_members
              WHERE account_id = $1 AND segment_id = $2 ORDER BY user_id LIMIT $3`,
            [accountId, segmentId, limit],
          )
        : await this.dataSource.query(
            `SELECT user_id FROM segment.segment_members
              WHERE account_id = $1 AND segment_id = $2 AND user_id > $3 ORDER BY user_id LIMIT $4`,
            [accountId, segmentId, afterUserId, limit],
          );
    return rows.map((row) => row.user_id);
  }
}
