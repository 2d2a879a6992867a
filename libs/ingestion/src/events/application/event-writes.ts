import { Injectable } from '@nestjs/common';
import { type Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { type AccountEvent, EventStore } from './event-store.port';

/** Events per insert at most: large enough for ClickHouse, small enough for one request body in memory. */
export const MAX_EVENTS_PER_INSERT = 100_000;

/**
 * Every write into the event store, whoever makes it (the event sink for tracked events, the import
 * worker for imported ones), in inserts of at most `MAX_EVENTS_PER_INSERT` events, measured alike:
 * events written, failed inserts, each insert's duration and size, and each event's delay from its
 * capture to the insert that made it readable.
 */
@Injectable()
export class EventWrites {
  private readonly written: Counter;
  private readonly failedInserts: Counter;
  private readonly insertDuration: Histogram;
  private readonly insertRows: Histogram;
  private readonly captureToQueryable: Histogram;

  constructor(
    private readonly store: EventStore,
    metrics: MetricsRegistry,
  ) {
    this.written = metrics.counter({ name: 'guidepost_event_store_events_written_total', help: 'Events written to the event store' });
    this.failedInserts = metrics.counter({
      name: 'guidepost_event_store_insert_failures_total',
      help: 'Inserts into the event store that failed (their events are written again: a batch delivered again, an import run again)',
    });
    this.insertDuration = new Histogram({
      name: 'guidepost_event_store_insert_duration_seconds',
      help: 'Duration of one successful insert into the event store (its count is the number of inserts)',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics],
    });
    this.insertRows = new Histogram({
      name: 'guidepost_event_store_insert_rows',
      help: 'Events per successful insert into the event store: how well the sink gathers, and how large import batches are',
      buckets: [1, 10, 100, 1_000, 10_000, 50_000, MAX_EVENTS_PER_INSERT],
      registers: [metrics],
    });
    this.captureToQueryable = new Histogram({
      name: 'guidepost_event_capture_to_queryable_seconds',
      help: 'From when the service received an event (tracked, or its import staged) to the insert that made it readable, per event',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers: [metrics],
    });
  }

  /** Resolves once every event is in the store; rejects when an insert failed (the events before it may be stored). */
  async write(events: readonly AccountEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_INSERT) {
      const slice = events.slice(start, start + MAX_EVENTS_PER_INSERT);
      const stopTimer = this.insertDuration.startTimer();
      try {
        await this.store.insert(slice);
      } catch (error) {
        this.failedInserts.inc();
        throw error;
      }
      stopTimer();
      this.insertRows.observe(slice.length);
      this.written.inc(slice.length);
      this.observeDelays(slice);
    }
  }

  /** Each stored event's capture-to-queryable delay; an unreadable receive time (never stored so) is left out. */
  private observeDelays(events: readonly AccountEvent[]): void {
    const insertedAt = Date.now();
    for (const { event } of events) {
      const receivedAt = Date.parse(event.receivedAt);
      if (!Number.isNaN(receivedAt)) this.captureToQueryable.observe(Math.max(0, insertedAt - receivedAt) / 1000);
    }
  }
}
