import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { emitJobEvent, type PayloadOf, SegmentUserIdsSubmitted } from '@guidepost/contracts-events';
import { type CreatedJob, JobName, JobRegistryClient, JobsOfOneRequest } from '@guidepost/contracts-http';
import { InjectUnitOfWork, type Transaction, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { failedEvent, ingestionCompletedEvent } from '../domain/job-outcomes';
import { type MembershipOperation, recordChunkApplied, segmentDeletedReason } from '../domain/membership-progress';
import { isSegmentId } from '../domain/segment';
import { chunkUserIds } from '../domain/user-id-chunks';
import { MembershipChangeRepository } from '../data-access/membership-change.repository';
import { SegmentMemberRepository } from '../data-access/segment-member.repository';
import { SegmentRepository } from '../data-access/segment.repository';
import { SEGMENT_SCHEMA } from '../data-access/segment-schema';

const JOB_NAMES: Record<MembershipOperation, string> = {
  add: JobName.AddSegmentUsers,
  remove: JobName.RemoveSegmentUsers,
};

/**
 * Add and remove requests, from acceptance to the last applied chunk.
 *
 * Accepting a request is one transaction: the ids are streamed and staged chunk by
 * chunk (all of them validated before anything is answered), the job is created, and one message per
 * chunk is written to the outbox. A bad line rolls everything back, so a rejected request leaves no
 * job, no staged ids and no message behind. Each chunk is then applied by the membership consumer.
 */
@Injectable()
export class MembershipChangeService {
  constructor(
    private readonly segments: SegmentRepository,
    private readonly changes: MembershipChangeRepository,
    private readonly members: SegmentMemberRepository,
    private readonly jobs: JobRegistryClient,
    @InjectUnitOfWork(SEGMENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  async submit(accountId: string, segmentId: string, operation: MembershipOperation, userIds: AsyncIterable<string>): Promise<CreatedJob> {
    if (!isSegmentId(segmentId)) throw notFound('Segment', segmentId);
    return JobsOfOneRequest.around(this.jobs, (jobs) =>
      this.unitOfWork.run(async (tx) => {
        if (!(await this.segments.existsForMembership(tx.manager, accountId, segmentId))) throw notFound('Segment', segmentId);

        const changeId = randomUUID();
        const submittedAt = new Date();
        let chunkCount = 0;
        for await (const chunk of chunkUserIds(userIds)) {
          await this.changes.stageChunk(tx.manager, changeId, chunkCount, chunk);
          chunkCount += 1;
        }

        // Created only now that the whole input is valid, and before the commit, so the job_url answers at once.
        const job = await jobs.createJob({ accountId, name: JOB_NAMES[operation] });
        if (chunkCount === 0) {
          emitJobEvent(tx, { jobId: job.id, accountId }, ingestionCompletedEvent(0, submittedAt, new Date()));
          return job;
        }
        await this.changes.insert(tx.manager, {
          id: changeId,
          jobId: job.id,
          accountId,
          segmentId,
          operation,
          chunkCount,
          chunksApplied: 0,
          idsApplied: 0,
          submittedAt,
          finishedAt: null,
        });
        for (let chunkIndex = 0; chunkIndex < chunkCount; chunkIndex += 1) {
          const payload = {
            accountId,
            segmentId,
            jobId: job.id,
            operation,
            chunkIndex,
            chunkCount,
            submittedAt: submittedAt.toISOString(),
          };
          tx.emit(SegmentUserIdsSubmitted, segmentId, payload, `${job.id}:${chunkIndex}`);
        }
        return job;
      }),
    );
  }

  /**
   * Applies one staged chunk inside the consumer's transaction (run once per message). When the
   * segment is gone the job fails once and the rest of its chunks are dropped as they arrive.
   */
  async applyChunk(tx: Transaction, message: PayloadOf<typeof SegmentUserIdsSubmitted>): Promise<void> {
    const change = await this.changes.findByJobForUpdate(tx.manager, message.jobId);
    if (!change) throw new UnknownMembershipChangeError(message.jobId);
    const userIds = (await this.changes.takeChunk(tx.manager, change.id, message.chunkIndex)) ?? [];
    if (change.finishedAt !== null) return;

    const job = { jobId: change.jobId, accountId: change.accountId };
    const now = new Date();
    if (!(await this.segments.existsForMembership(tx.manager, change.accountId, change.segmentId))) {
      await this.changes.discardChunks(tx.manager, change.id);
      await this.changes.saveProgress(tx.manager, change.id, { ...change, finishedAt: now });
      emitJobEvent(tx, job, failedEvent(segmentDeletedReason(change.segmentId), now));
      return;
    }

    if (change.operation === 'add') await this.members.add(tx.manager, change.accountId, change.segmentId, userIds);
    else await this.members.remove(tx.manager, change.accountId, change.segmentId, userIds);
    const step = recordChunkApplied(change, userIds.length, now);
    await this.changes.saveProgress(tx.manager, change.id, step.progress);
    for (const event of step.events) emitJobEvent(tx, job, event);
  }
}

/**
 * A chunk message whose change was never recorded cannot succeed on any retry (the change and its
 * messages commit together); `permanent` has the relay dead-letter it at once, with this reason.
 */
class UnknownMembershipChangeError extends Error {
  readonly permanent = true;

  constructor(jobId: string) {
    super(`no membership change is recorded for job ${jobId}`);
    this.name = 'UnknownMembershipChangeError';
  }
}
