import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { emitJobEvent, type PayloadOf, SegmentMembershipExportRequested } from '@guidepost/contracts-events';
import {
  type CreatedJob,
  JobName,
  JobRegistryClient,
  JobsOfOneRequest,
  type SegmentMembershipExportRequest,
  UserProfileDirectory,
} from '@guidepost/contracts-http';
import { BlobStore } from '@guidepost/platform-blob';
import { AppConfig } from '@guidepost/platform-config';
import { exportBlobKey, reportExportCompleted, storeExportWithRetries } from '@guidepost/platform-jobs';
import { InjectUnitOfWork, type Transaction, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-errors';
import { failedEvent } from '../domain/job-outcomes';
import { exportColumns, exportRenderer, type ExportRenderer } from '../domain/membership-export-format';
import { isSegmentId } from '../domain/segment';
import { SegmentMemberRepository } from '../data-access/segment-member.repository';
import { SegmentRepository } from '../data-access/segment.repository';
import { SEGMENT_SCHEMA } from '../data-access/segment-schema';

type ExportRequested = PayloadOf<typeof SegmentMembershipExportRequested>;

/** Members read, and profiles fetched, per round trip. */
const MEMBERS_PER_PAGE = 1_000;

/**
 * Segment membership exports: accepting the request (a job plus a message), then writing the file to
 * the blob store and reporting the outcome. A job always ends: `Completed` with the link, or `Failed`
 * with the reason once retrying cannot help.
 */
@Injectable()
export class MembershipExportService {
  constructor(
    private readonly segments: SegmentRepository,
    private readonly members: SegmentMemberRepository,
    private readonly profiles: UserProfileDirectory,
    private readonly blobs: BlobStore,
    private readonly jobs: JobRegistryClient,
    @InjectUnitOfWork(SEGMENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
    private readonly config: AppConfig,
  ) {}

  /** Creates the job and announces the export, whose link will start with `linkBaseUrl` (the request's). */
  async request(accountId: string, segmentId: string, request: SegmentMembershipExportRequest, linkBaseUrl: string): Promise<CreatedJob> {
    if (!isSegmentId(segmentId)) throw notFound('Segment', segmentId);
    return JobsOfOneRequest.around(this.jobs, (jobs) =>
      this.unitOfWork.run(async (tx) => {
        if (!(await this.segments.existsForMembership(tx.manager, accountId, segmentId))) throw notFound('Segment', segmentId);
        const job = await jobs.createJob({ accountId, name: JobName.ExportSegmentMembership });
        const payload: ExportRequested = {
          accountId,
          segmentId,
          jobId: job.id,
          format: request.format ?? 'json',
          propertyNames: request.property_names ?? [],
          ...(request.email === undefined ? {} : { email: request.email }),
          requestedAt: new Date().toISOString(),
          linkBaseUrl,
        };
        tx.emit(SegmentMembershipExportRequested, segmentId, payload, `${job.id}:export-requested`);
        return job;
      }),
    );
  }

  /** Writes the export and reports its outcome in the consumer's transaction (run once per message). */
  async run(tx: Transaction, request: ExportRequested): Promise<void> {
    const job = { jobId: request.jobId, accountId: request.accountId };
    const segment = await this.segments.find(request.accountId, request.segmentId);
    if (!segment) {
      const reason = `Segment '${request.segmentId}' was deleted before its membership was exported`;
      emitJobEvent(tx, job, failedEvent(reason, new Date()));
      return;
    }
    const renderer = exportRenderer(request.format, request.propertyNames);
    const file = {
      key: exportBlobKey(request.accountId, request.jobId, renderer.extension),
      contentType: renderer.contentType,
      linkBaseUrl: this.config.jobLinkBaseUrl(request.linkBaseUrl),
    };
    const outcome = await storeExportWithRetries(this.blobs, file, (output) => this.write(request, renderer, output));
    if ('reason' in outcome) {
      emitJobEvent(tx, job, failedEvent(outcome.reason, new Date()));
      return;
    }
    reportExportCompleted(tx, job, {
      artifact: outcome,
      requestedAt: new Date(request.requestedAt),
      finishedAt: new Date(),
      mail: {
        to: request.email === undefined ? [] : [request.email],
        subject: `Segment membership export ready: ${segment.name}`,
        what: `The membership export of segment "${segment.name}"`,
      },
    });
  }

  /** Reports an export given up on for good (its request dead-lettered) as `Failed` with the reason. */
  giveUp(tx: Transaction, request: ExportRequested, reason: string): void {
    emitJobEvent(
      tx,
      { jobId: request.jobId, accountId: request.accountId },
      failedEvent(`The export could not be written: ${reason}`, new Date()),
    );
  }

  private async write(request: ExportRequested, renderer: ExportRenderer, output: Writable): Promise<number> {
    const counter = { rows: 0 };
    await pipeline(Readable.from(this.render(request, renderer, counter), { objectMode: false }), output);
    return counter.rows;
  }

  /** The file, one page of members at a time (never the whole membership in memory). */
  private async *render(request: ExportRequested, renderer: ExportRenderer, counter: { rows: number }): AsyncGenerator<Buffer> {
    if (renderer.header !== '') yield Buffer.from(renderer.header);
    const wantsProperties = exportColumns(request.propertyNames).length > 1;
    let after: string | null = null;
    for (;;) {
      const userIds = await this.members.page(request.accountId, request.segmentId, after, MEMBERS_PER_PAGE);
      if (userIds.length === 0) return;
      const profiles = wantsProperties
        ? await this.profiles.getProfiles(request.accountId, userIds)
        : new Map<string, Record<string, unknown>>();
      counter.rows += userIds.length;
      yield Buffer.from(userIds.map((userId) => renderer.row(userId, profiles.get(userId))).join(''));
      if (userIds.length < MEMBERS_PER_PAGE) return;
      after = userIds[userIds.length - 1];
    }
  }
}
