import type { JobEventDraft } from '@guidepost/contracts-events';

/** The work of a membership change has started. */
export function ingestingEvent(now: Date): JobEventDraft {
  return { name: 'Ingesting', timestamp: now.toISOString(), attributes: {} };
}

/** A membership change is applied; the counters are the ones every ingestion job reports. */
export function ingestionCompletedEvent(idsApplied: number, startedAt: Date, now: Date): JobEventDraft {
  return {
    name: 'Completed',
    timestamp: now.toISOString(),
    attributes: {
      ingestions_completed: idsApplied,
      ingestions_failed: 0,
      requests_failed: 0,
      runtime_ms: runtimeMs(startedAt, now),
    },
  };
}

export function failedEvent(reason: string, now: Date): JobEventDraft {
  return { name: 'Failed', timestamp: now.toISOString(), attributes: { reason } };
}

/** Never negative, even if clocks of two machines disagree a little. */
function runtimeMs(startedAt: Date, now: Date): number {
  return Math.max(0, now.getTime() - startedAt.getTime());
}
