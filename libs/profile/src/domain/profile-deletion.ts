import type { JobEventDraft } from '@guidepost/contracts-events';

/** The outcome of a profile deletion: `deleted` says whether there was a profile to delete. */
export function profileDeletedEvent(deleted: boolean, startedAt: Date, now: Date): JobEventDraft {
  return {
    name: 'Completed',
    timestamp: now.toISOString(),
    // Never negative, even if the clocks of the registry and this service disagree a little.
    attributes: { deleted, runtime_ms: Math.max(0, now.getTime() - startedAt.getTime()) },
  };
}
