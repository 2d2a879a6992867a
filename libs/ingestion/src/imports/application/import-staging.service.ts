import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ImportKind, ImportStaged } from '@guidepost/contracts-events';
import { type CreatedJob, JobName } from '@guidepost/contracts-http';
import { BlobStore } from '@guidepost/platform-blob';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { DomainError } from '@guidepost/platform-errors';
import { type InboundBody, type RecordFormat } from '@guidepost/platform-http';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { JobRegistry } from '../../jobs/application/job-registry.service';
import { importBlobKey } from '../domain/import-blob-key';
import { withContent } from './upload-content';

/** The job each kind of import runs as. */
export const IMPORT_JOB_NAMES: Readonly<Record<ImportKind, JobName>> = {
  [ImportKind.Profiles]: JobName.ImportProfiles,
  [ImportKind.Groups]: JobName.ImportGroups,
  [ImportKind.Events]: JobName.ImportEvents,
};

const CONTENT_TYPES: Readonly<Record<RecordFormat, string>> = { ndjson: 'application/ndjson', csv: 'text/csv' };

/**
 * Accepts bulk imports. The upload is streamed byte for byte into the blob store before anything
 * else (nothing is parsed: a malformed file fails its job, not the request); only once it is stored
 * are the job created and `ImportStaged` announced, in one transaction. So a 202 always stands for
 * a durable upload, and an upload that broke off (413, client gone) leaves no job behind. An account
 * already running its limit of imports and exports is answered 429 before its upload is read, and an
 * upload whose job could not be created is deleted again.
 */
@Injectable()
export class ImportStaging {
  constructor(
    private readonly blobs: BlobStore,
    private readonly jobs: JobRegistry,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  /** Stages the upload as a job whose links (its failures) start with `linkBaseUrl`, the request's. */
  async stage(accountId: string, kind: ImportKind, body: InboundBody, linkBaseUrl: string): Promise<CreatedJob> {
    if (body.kind !== 'records') {
      throw new DomainError('invalid_request', 'body: is required (send the rows as application/ndjson, text/csv or an uploaded file)');
    }
    await this.jobs.assertRoomForBulkJob(accountId);
    const upload = await withContent(body.stream);
    if (!upload) throw new DomainError('invalid_request', `${body.origin === 'file' ? 'file' : 'body'}: is empty (no rows to import)`);
    const blobKey = importBlobKey(accountId, randomUUID(), body.format);
    const { bytes } = await this.blobs.put(blobKey, upload, CONTENT_TYPES[body.format]);
    try {
      return await this.unitOfWork.run(async (tx) => {
        const job = await this.jobs.createJob({ accountId, name: IMPORT_JOB_NAMES[kind] }, tx);
        const payload = { accountId, jobId: job.id, kind, format: body.format, blobKey, bytes, stagedAt: job.startedAt, linkBaseUrl };
        tx.emit(ImportStaged, job.id, payload, `${job.id}:staged`);
        return job;
      });
    } catch (error) {
      // No job stands for the upload (refused, or the database failed): nothing would ever delete it.
      await this.blobs.delete(blobKey).catch(() => undefined);
      throw error;
    }
  }
}
