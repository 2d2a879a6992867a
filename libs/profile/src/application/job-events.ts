import { JobEventRecorded } from '@guidepost/contracts-events';
import type { Transaction } from '@guidepost/platform-database';
import type { JobEventDraft } from '../domain/profile-deletion';

/**
 * Reports a job event through the outbox. A job reports each event name at most once, so
 * `<job id>:<event name>` is a deterministic message id: a replayed step cannot report twice.
 */
export function emitJobEvent(tx: Transaction, job: { readonly jobId: string; readonly accountId: string }, event: JobEventDraft): void {
  tx.emit(JobEventRecorded, job.jobId, { jobId: job.jobId, accountId: job.accountId, ...event }, `${job.jobId}:${event.name}`);
}
