import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { SegmentRecord } from '../domain/segment';
import { SegmentEntity } from './segment.entity';
import { SEGMENT_SCHEMA } from './segment-schema';

/** Segments of an account. Reads stand alone; writes take the transaction they belong to. */
@Injectable()
export class SegmentRepository {
  constructor(@InjectRepository(SegmentEntity, SEGMENT_SCHEMA) private readonly segments: Repository<SegmentEntity>) {}

  /** Oldest first, so that a list reads the same way every time. */
  list(accountId: string): Promise<SegmentEntity[]> {
    return this.segments.find({ where: { accountId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(accountId: string, id: string): Promise<SegmentEntity | null> {
    return this.segments.findOneBy({ accountId, id });
  }

  /**
   * The segment, locked against other updates and deletion until the transaction ends. The lock does
   * not wait for membership changes in progress (they hold only a key share).
   */
  findForUpdate(manager: EntityManager, accountId: string, id: string): Promise<SegmentEntity | null> {
    return manager.findOne(SegmentEntity, { where: { accountId, id }, lock: { mode: 'for_no_key_update' } });
  }

  /**
   * The segment, kept from being deleted (not from being renamed) until the transaction ends: a
   * membership change either sees the segment and lands before a deletion, or sees it gone.
   */
  async existsForMembership(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM segment.segments WHERE account_id = $1 AND id = $2 FOR KEY SHARE`, [
      accountId,
      id,
    ]);
    return rows.length > 0;
  }

  async save(manager: EntityManager, segment: SegmentRecord): Promise<SegmentEntity> {
    return manager.save(manager.create(SegmentEntity, segment));
  }

  /** True when the segment existed; its members go with it (foreign key cascade). */
  async delete(accountId: string, id: string): Promise<boolean> {
    const result = await this.segments.delete({ accountId, id });
    return (result.affected ?? 0) > 0;
  }
}
