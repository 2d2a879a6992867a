import type { JobEventDraft } from '@guidepost/contracts-events';
import { ingestingEvent, ingestionCompletedEvent } from './job-outcomes';

export type MembershipOperation = 'add' | 'remove';

/** How far one submitted membership change (one job) has been applied, chunk by chunk. */
export interface MembershipProgress {
  readonly chunkCount: number;
  readonly chunksApplied: number;
  readonly idsApplied: number;
  readonly submittedAt: Date;
  readonly finishedAt: Date | null;
}

export interface ProgressStep {
  readonly progress: MembershipProgress;
  /** Job events this step produces, in order. */
  readonly events: JobEventDraft[];
}

/**
 * Records one more applied chunk. The first chunk announces `Ingesting`; the last one finishes the
 * submission and announces `Completed` with the ids applied. Chunks may arrive in any order: only the
 * count matters. The caller applies each chunk once (runOnce), and never after the submission finished.
 */
export function recordChunkApplied(progress: MembershipProgress, idsInChunk: number, now: Date): ProgressStep {
  if (progress.finishedAt !== null) throw new Error('a finished membership change takes no more chunks');
  const chunksApplied = progress.chunksApplied + 1;
  const idsApplied = progress.idsApplied + idsInChunk;
  const finished = chunksApplied >= progress.chunkCount;
  const events: JobEventDraft[] = [];
  if (progress.chunksApplied === 0) events.push(ingestingEvent(now));
  if (finished) events.push(ingestionCompletedEvent(idsApplied, progress.submittedAt, now));
  return { progress: { ...progress, chunksApplied, idsApplied, finishedAt: finished ? now : null }, events };
}

/** Why a membership change cannot be applied once its segment is gone. */
export function segmentDeletedReason(segmentId: string): string {
  return `Segment '${segmentId}' was deleted before the membership change was applied`;
}
