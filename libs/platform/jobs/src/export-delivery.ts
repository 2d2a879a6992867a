import { createHash } from 'node:crypto';
import { PassThrough, type Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { emitJobEvent, type JobRef, MailRequested } from '@guidepost/contracts-events';
import { classifyFailure, reasonOf } from '@guidepost/platform-failures';
import type { Transaction } from '@guidepost/platform-database';
import { type BlobStore, MAX_LINK_TTL_SECONDS } from '@guidepost/platform-blob';

/**
 * What every export job does with its file (segment membership, events): store it in the blob store
 * under `exports/<account>/<job>.<extension>`, link it for one week, and report the outcome in the
 * job's `Completed` event with a mail to the requested addresses (docs/api-contract.md#jobs).
 */

/** One week: what the spec promises for export links, and the most a presigned S3 link may live. */
export const EXPORT_LINK_TTL_SECONDS = MAX_LINK_TTL_SECONDS;
/** Attempts at writing the file before the job fails; waits grow between them (transient outages). */
export const EXPORT_ATTEMPTS = 3;
const RETRY_BASE_DELAY_MS = 2_000;
const logger = new Logger('ExportDelivery');

/** What a blob key segment may safely be: every blob adapter takes it as is (no dots, no escaping). */
const PLAIN_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Where an export is written: `exports/<account>/<job>.<extension>`. Account and job ids are used as
 * they are when they are plain; any other id (with dots, spaces, slashes...) is replaced by its
 * SHA-256, so no id can escape its folder or be refused by the store.
 */
export function exportBlobKey(accountId: string, jobId: string, extension: string): string {
  return `exports/${keySegment(accountId)}/${keySegment(jobId)}.${extension}`;
}

function keySegment(id: string): string {
  return PLAIN_SEGMENT.test(id) ? id : createHash('sha256').update(id).digest('hex');
}

export interface ExportFile {
  readonly key: string;
  readonly contentType: string;
  /** The public base URL of the request that asked for the export: its download link starts there (`BlobStore.signedUrl`). */
  readonly linkBaseUrl: string;
}

/** Streams the rows into `output` (ending it or not) and resolves with their count. */
export type ExportWriter = (output: Writable) => Promise<number>;

export interface ExportArtifact {
  readonly url: string;
  /** ISO 8601 end of the link's validity. */
  readonly expiresAt: string;
  readonly rows: number;
}

/**
 * Writes the file through a stream into the store (memory stays bounded by the stream's buffer, so a
 * slow store slows the writer down) and links it for one week. A failure on either side fails both.
 */
export async function storeExport(blobs: BlobStore, file: ExportFile, write: ExportWriter): Promise<ExportArtifact> {
  const body = new PassThrough();
  // Failures reach the caller through the promises below; a destroyed body must not also crash the
  // process with an unhandled 'error' event when the store gave up before reading it.
  body.on('error', () => undefined);
  const abandon = (error: unknown): never => {
    body.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  };
  const writing = write(body).then((rows) => {
    body.end();
    return rows;
  }, abandon);
  const storing = blobs.put(file.key, body, file.contentType).catch(abandon);
  // Rejects as soon as either side fails; Promise.all keeps the other side's later failure handled.
  const [rows] = await Promise.all([writing, storing]);
  const link = await blobs.signedUrl(file.key, EXPORT_LINK_TTL_SECONDS, file.linkBaseUrl);
  return { url: link.url, expiresAt: link.expiresAt, rows };
}

/**
 * `storeExport` with up to `EXPORT_ATTEMPTS` attempts, waiting longer after each failure; the reason
 * to report when none succeeded, so that the job ends. A transient failure (the blob store, the event
 * store or another service is unreachable) is thrown instead: the bus delivers the request again until
 * the dependency is back, and the export is written then (to the same key, from the start).
 */
export async function storeExportWithRetries(
  blobs: BlobStore,
  file: ExportFile,
  write: ExportWriter,
): Promise<ExportArtifact | { readonly reason: string }> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await storeExport(blobs, file, write);
    } catch (error) {
      const failureClass = classifyFailure(error);
      if (failureClass === 'transient') throw error;
      const message = reasonOf(error);
      if (failureClass === 'permanent' || attempt >= EXPORT_ATTEMPTS)
        return { reason: `The export could not be written (${attempt} attempts): ${message}` };
      logger.warn(`export ${file.key}, attempt ${attempt} failed, retrying: ${message}`);
      await new Promise((resolve) => setTimeout(resolve, RETRY_BASE_DELAY_MS * attempt));
    }
  }
}

export type ExportJob = JobRef;

export interface ExportCompletion {
  readonly artifact: ExportArtifact;
  /** When the export was requested: `runtime_ms` counts from there. */
  readonly requestedAt: Date;
  readonly finishedAt: Date;
  /** Further attributes of the `Completed` event (e.g. the file's format). */
  readonly attributes?: Readonly<Record<string, unknown>>;
  /** The mail announcing the link; none when `to` is empty. `what` opens its text ("The event export"). */
  readonly mail?: { readonly to: readonly string[]; readonly subject: string; readonly what: string };
}

/**
 * Reports the finished export in the caller's transaction: `Completed` with `signed_s3_url`,
 * `expires_at`, `rows` and `runtime_ms`, and the mail. Message ids are deterministic
 * (`<job>:Completed`, `<job>:mail`), so a retried job cannot announce itself twice.
 */
export function reportExportCompleted(tx: Transaction, job: ExportJob, completion: ExportCompletion): void {
  const { artifact, mail } = completion;
  const attributes = {
    signed_s3_url: artifact.url,
    expires_at: artifact.expiresAt,
    rows: artifact.rows,
    ...completion.attributes,
    runtime_ms: Math.max(0, completion.finishedAt.getTime() - completion.requestedAt.getTime()),
  };
  emitJobEvent(tx, job, { name: 'Completed', timestamp: completion.finishedAt.toISOString(), attributes });
  if (mail && mail.to.length > 0) {
    const text = `${mail.what} (${artifact.rows} rows) is ready:\n\n${artifact.url}\n\nThe link expires at ${artifact.expiresAt}.`;
    tx.emit(MailRequested, job.jobId, { to: [...mail.to], subject: mail.subject, text }, `${job.jobId}:mail`);
  }
}

/** Reports, in the caller's transaction, why the export failed (message id `<job>:Failed`). */
export function reportExportFailed(tx: Transaction, job: ExportJob, reason: string, now: Date): void {
  emitJobEvent(tx, job, { name: 'Failed', timestamp: now.toISOString(), attributes: { reason } });
}
