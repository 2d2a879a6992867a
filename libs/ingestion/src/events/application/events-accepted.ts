import type { Counter } from 'prom-client';
import type { MetricsRegistry } from '@guidepost/platform-observability';

/** Where accepted events came in: the track API (one by one) or an import (a file). */
export type EventsIntake = 'track' | 'import';

/**
 * `guidepost_events_accepted_total{intake}`: events made durable (the ingestion outbox, or Kafka for
 * tracked events of the distributed shape, holds them),
 * the input side of the pipeline whose output is `guidepost_event_store_events_written_total`. Shared
 * by the track intake and the import worker.
 */
export function eventsAcceptedCounter(registry: MetricsRegistry): Counter<'intake'> {
  return registry.counter({
    name: 'guidepost_events_accepted_total',
    help: 'Events accepted (made durable: in the ingestion outbox, or in Kafka) by intake: track or import',
    labelNames: ['intake'],
  });
}
