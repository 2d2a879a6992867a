import type { Counter } from 'prom-client';
import type { MetricsRegistry } from '@guidepost/platform-observability';

/** Where accepted events came in: the track API (one by one) or an import (a file). */
export type EventsIntake = 'track' | 'import';

/**
 * `guidepost_events_accepted_total{intake}`: events made durable (committed to the ingestion outbox),
 * the input side of the pipeline whose output is `guidepost_event_store_events_written_total`. Shared
 * by the track intake and the import worker.
 */
export function eventsAcceptedCounter(registry: MetricsRegistry): Counter<'intake'> {
  return registry.counter({
    name: 'guidepost_events_accepted_total',
    help: 'Events accepted (committed to the ingestion outbox) by intake: track or import',
    labelNames: ['intake'],
  });
}
