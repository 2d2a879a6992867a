import { Injectable } from '@nestjs/common';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { isSegmentId, newSegment, updateSegment, type SegmentChanges, type SegmentRecord } from '../domain/segment';
import { SegmentRepository } from '../data-access/segment.repository';
import { SEGMENT_SCHEMA } from '../data-access/segment-schema';

/** Create, read, update and delete segments. */
@Injectable()
export class SegmentsService {
  constructor(
    private readonly segments: SegmentRepository,
    @InjectUnitOfWork(SEGMENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  list(accountId: string): Promise<SegmentRecord[]> {
    return this.segments.list(accountId);
  }

  async get(accountId: string, segmentId: string): Promise<SegmentRecord> {
    const segment = isSegmentId(segmentId) ? await this.segments.find(accountId, segmentId) : null;
    if (!segment) throw notFound('Segment', segmentId);
    return segment;
  }

  create(accountId: string, fields: SegmentChanges & { readonly name: string }): Promise<SegmentRecord> {
    const segment = newSegment(accountId, fields, new Date());
    return this.unitOfWork.run((tx) => this.segments.save(tx.manager, segment));
  }

  /** Read, change and write under a row lock, so two concurrent updates cannot lose one another. */
  async update(accountId: string, segmentId: string, changes: SegmentChanges): Promise<SegmentRecord> {
    if (!isSegmentId(segmentId)) throw notFound('Segment', segmentId);
    return this.unitOfWork.run(async (tx) => {
      const segment = await this.segments.findForUpdate(tx.manager, accountId, segmentId);
      if (!segment) throw notFound('Segment', segmentId);
      return this.segments.save(tx.manager, updateSegment(segment, changes, new Date()));
    });
  }

  /** Removes the segment and its membership; later chunks of pending changes then fail their job. */
  async delete(accountId: string, segmentId: string): Promise<void> {
    const deleted = isSegmentId(segmentId) && (await this.segments.delete(accountId, segmentId));
    if (!deleted) throw notFound('Segment', segmentId);
  }
}
