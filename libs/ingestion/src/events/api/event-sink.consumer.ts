import { type BeforeApplicationShutdown, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { type BusMessage, EventsAccepted, type PayloadOf } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { AppConfig } from '@guidepost/platform-config';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { type AccountEvent, EventStore } from '../application/event-store.port';
import { InsertGatherer } from '../application/insert-gatherer';
import { unstorableReason } from '../domain/storable-event';

export const EVENT_SINK_GROUP = 'ingestion.event-sink';
/** Events per insert at most: large enough for ClickHouse, small enough for one request body in memory. */
export const MAX_EVENTS_PER_INSERT = 100_000;

type EventsAcceptedMessage = BusMessage<PayloadOf<typeof EventsAccepted>>;

/**
 * Writes accepted events to the event store in few large inserts: the events of concurrent batches
 * (Kafka partitions, say) are gathered until `eventSinkMaxRows` of them are waiting or the oldest was
 * accepted `eventSinkMaxWaitMs` ago, then inserted together, whatever their accounts (see
 * `InsertGatherer`). A batch is handled once the insert carrying its events succeeded, so the bus
 * records it as done only after the events are durable; a failed insert fails every batch it
 * carried, and each is delivered again. Needs no record of handled messages: event ids are
 * deterministic, so writing a redelivered batch again changes nothing readers see.
 */
@Injectable()
export class EventSinkConsumer implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(EventSinkConsumer.name);
  private readonly gatherer: InsertGatherer<AccountEvent>;
  private readonly written: Counter;
  private readonly rejected: Counter;
  private readonly failedInserts: Counter;
  private readonly insertDuration: Histogram;
  private readonly insertRows: Histogram;
  private readonly captureToQueryable: Histogram;

  constructor(
    private readonly bus: MessageBus,
    private readonly store: EventStore,
    metrics: MetricsRegistry,
    config: AppConfig,
  ) {
    this.gatherer = new InsertGatherer((events) => this.insert(events), {
      maxItems: config.eventSinkMaxRows,
      maxWaitMs: config.eventSinkMaxWaitMs,
    });
    this.written = metrics.counter({ name: 'guidepost_event_store_events_written_total', help: 'Events written to the event store' });
    this.rejected = metrics.counter({
      name: 'guidepost_event_store_events_rejected_total',
      help: 'Accepted events the event store cannot hold (see the error log for each)',
    });
    this.failedInserts = metrics.counter({
      name: 'guidepost_event_store_insert_failures_total',
      help: 'Inserts into the event store that failed (their batches are delivered again)',
    });
    this.insertDuration = new Histogram({
      name: 'guidepost_event_store_insert_duration_seconds',
      help: 'Duration of one successful insert into the event store (its count is the number of inserts)',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics],
    });
    this.insertRows = new Histogram({
      name: 'guidepost_event_store_insert_rows',
      help: 'Events per successful insert into the event store: how well the sink gathers',
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

  onModuleInit(): void {
    this.bus.subscribe({ topic: EventsAccepted, group: EVENT_SINK_GROUP, handleBatch: (messages) => this.write(messages) });
  }

  /** Resolves once the batch's events are in the store; rejects when the insert that carried them failed. */
  write(messages: readonly EventsAcceptedMessage[]): Promise<void> {
    return this.gatherer.submit(this.storableEvents(messages), oldestOccurrence(messages));
  }

  /** Inserts what is gathered at once, and waits for it, before the store's client closes. */
  beforeApplicationShutdown(): Promise<void> {
    return this.gatherer.drain();
  }

  private async insert(events: readonly AccountEvent[]): Promise<void> {
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

  /**
   * The batch's events. One the store cannot hold is logged and counted, so it cannot fail the others
   * forever. Every intake refuses such events before acknowledging them (`unstorableInstantReason`), so
   * this guards only against messages from elsewhere (an older release, a hand-made message).
   */
  private storableEvents(messages: readonly EventsAcceptedMessage[]): AccountEvent[] {
    const storable: AccountEvent[] = [];
    for (const { id, payload } of messages) {
      for (const event of payload.events) {
        const reason = unstorableReason(event);
        if (reason === undefined) {
          storable.push({ accountId: payload.accountId, event });
        } else {
          this.rejected.inc();
          this.logger.error(`event ${event.eventId} of account ${payload.accountId} (message ${id}) was not stored: ${reason}`);
        }
      }
    }
    return storable;
  }
}

/** When the oldest message of the batch was accepted (epoch ms), so its events wait no longer than the limit in all. */
function oldestOccurrence(messages: readonly EventsAcceptedMessage[]): number {
  let oldest = Date.now();
  for (const { occurredAt } of messages) {
    const at = Date.parse(occurredAt);
    // An unreadable time (NaN) compares false: that message counts as accepted now.
    if (at < oldest) oldest = at;
  }
  return oldest;
}
