import type { JobEventName } from '@guidepost/contracts-events';

/** A job event before it is addressed to a job (the application adds job and account ids). */
export interface JobEventDraft {
  readonly name: JobEventName;
  readonly timestamp: string;
  readonly attributes: Record<string, unknown>;
}

/** The outcome of a profile deletion: `deleted` says whether there was a profile to delete. */
export function profileDeletedEvent(deleted: boolean, startedAt: Date, now: Date): JobEventDraft {
  return {
    name: 'Completed',
    timestamp: now.toISOString(),
    // Never negative, even if the clocks of the registry and this service disagree a little.
    attributes: { deleted, runtime_ms: Math.max(0, now.getTime() - startedAt.getTime()) },
  };
}
