import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { MailRequested, type PayloadOf, SegmentMembershipExportRequested } from '@guidepost/contracts-events';
import { type CreatedJob, JobName, JobRegistryClient, type SegmentMembershipExportRequest, UserProfileDirectory } from '@guidepost/contracts-http';
import { BlobStore } from '@guidepost/platform-blob';
import { InjectUnitOfWork, type Transaction, UnitOfWork } from '@guidepost/platform-database';
import { notFound } from '@guidepost/platform-http';
import { exportBlobKey } from '../domain/export-blob-key';
import { exportCompletedEvent, type ExportArtifact, failedEvent } from '../domain/job-outcomes';
import { exportColumns, exportRenderer, type ExportRenderer } from '../domain/membership-export-format';
import { isSegmentId, type SegmentRecord } from '../domain/segment';
import { SegmentMemberRepository } from '../data-access/segment-member.repository';
import { SegmentRepository } from '../data-access/segment.repository';
import { SEGMENT_SCHEMA } from '../data-access/segment-schema';
import { emitJobEvent } from './job-events';

type ExportRequested = PayloadOf<typeof SegmentMembershipExportRequested>;

/** One week: what the spec promises for export links, and the most a presigned S3 link may live. */
export const EXPORT_LINK_TTL_SECONDS = 604_800;
/** Members read, and profiles fetched, per round trip. */
const MEMBERS_PER_PAGE = 1_000;
/** Attempts at writing the file before the job fails; waits grow between them (transient outages). */
export const EXPORT_ATTEMPTS = 3;
const RETRY_BASE_DELAY_MS = 2_000;

/**
 * Segment membership exports: accepting the request (a job plus a message), then writing the file to
 * the blob store and reporting the outcome. A job always ends: `Completed` with the link, or `Failed`
 * with the reason once retrying cannot help.
 */
@Injectable()
export class MembershipExportService {
  private readonly logger = new Logger(MembershipExportService.name);

  constructor(
    private readonly segments: SegmentRepository,
    private readonly members: SegmentMemberRepository,
    private readonly profiles: UserProfileDirectory,
    private readonly blobs: BlobStore,
    private readonly jobs: JobRegistryClient,
    @InjectUnitOfWork(SEGMENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  async request(accountId: string, segmentId: string, request: SegmentMembershipExportRequest): Promise<CreatedJob> {
    if (!isSegmentId(segmentId)) throw notFound('Segment', segmentId);
    return this.unitOfWork.run(async (tx) => {
      if (!(await this.segments.existsForMembership(tx.manager, accountId, segmentId))) throw notFound('Segment', segmentId);
      const job = await this.jobs.createJob({ accountId, name: JobName.ExportSegmentMembership });
      const payload: ExportRequested = {
        accountId,
        segmentId,
        jobId: job.id,
        format: request.format ?? 'json',
        propertyNames: request.property_names ?? [],
        ...(request.email === undefined ? {} : { email: request.email }),
        requestedAt: new Date().toISOString(),
      };
      tx.emit(SegmentMembershipExportRequested, segmentId, payload, `${job.id}:export-requested`);
      return job;
    });
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
    const outcome = await this.writeWithRetries(request);
    if ('reason' in outcome) {
      emitJobEvent(tx, job, failedEvent(outcome.reason, new Date()));
      return;
    }
    emitJobEvent(tx, job, exportCompletedEvent(outcome, new Date(request.requestedAt), new Date()));
    if (request.email !== undefined) {
      tx.emit(MailRequested, request.jobId, exportReadyMail(request.email, segment, outcome), `${request.jobId}:mail`);
    }
  }

  private async writeWithRetries(request: ExportRequested): Promise<ExportArtifact | { reason: string }> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.writeArtifact(request);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (attempt >= EXPORT_ATTEMPTS) return { reason: `The export could not be written (${attempt} attempts): ${message}` };
        this.logger.warn(`export of job ${request.jobId}, attempt ${attempt} failed, retrying: ${message}`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_BASE_DELAY_MS * attempt));
      }
    }
  }

  private async writeArtifact(request: ExportRequested): Promise<ExportArtifact> {
    const renderer = exportRenderer(request.format, request.propertyNames);
    const key = exportBlobKey(request.accountId, request.jobId, renderer.extension);
    const counter = { rows: 0 };
    const body = Readable.from(this.render(request, renderer, counter), { objectMode: false });
    await this.blobs.put(key, body, renderer.contentType);
    const link = this.blobs.signedUrl(key, EXPORT_LINK_TTL_SECONDS);
    return { url: link.url, expiresAt: link.expiresAt, rows: counter.rows };
  }

  /** The file, one page of members at a time (never the whole membership in memory). */
  private async *render(request: ExportRequested, renderer: ExportRenderer, counter: { rows: number }): AsyncGenerator<Buffer> {
    if (renderer.header !== '') yield Buffer.from(renderer.header);
    const wantsProperties = exportColumns(request.propertyNames).length > 1;
    let after: string | null = null;
    for (;;) {
      const userIds = await this.members.page(request.accountId, request.segmentId, after, MEMBERS_PER_PAGE);
      if (userIds.length === 0) return;
      const profiles = wantsProperties ? await this.profiles.getProfiles(request.accountId, userIds) : new Map<string, Record<string, unknown>>();
      counter.rows += userIds.length;
      yield Buffer.from(userIds.map((userId) => renderer.row(userId, profiles.get(userId))).join(''));
      if (userIds.length < MEMBERS_PER_PAGE) return;
      after = userIds[userIds.length - 1];
    }
  }
}

function exportReadyMail(to: string, segment: SegmentRecord, artifact: ExportArtifact): PayloadOf<typeof MailRequested> {
  return {
    to: [to],
    subject: `Segment membership export ready: ${segment.name}`,
    text:
      `The membership export of segment "${segment.name}" (${artifact.rows} rows) is ready:\n\n${artifact.url}\n\n` +
      `The link expires at ${artifact.expiresAt}.`,
  };
}
