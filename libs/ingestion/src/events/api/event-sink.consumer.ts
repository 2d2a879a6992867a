import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { type BusMessage, EventsAccepted, type PayloadOf, type RecordedEvent } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { EventStore } from '../application/event-store.port';
import { unstorableReason } from '../domain/storable-event';

export const EVENT_SINK_GROUP = 'ingestion.event-sink';
/** Events per insert at most: large enough for ClickHouse, small enough for one request body in memory. */
export const MAX_EVENTS_PER_INSERT = 100_000;

type EventsAcceptedMessage = BusMessage<PayloadOf<typeof EventsAccepted>>;

/**
 * Writes accepted events to the event store, a batch of messages at a time with one insert per
 * account. Needs no record of handled messages: event ids are deterministic, so writing a redelivered
 * batch again changes nothing readers see. A failed insert fails the batch, which is delivered again.
 */
@Injectable()
export class EventSinkConsumer implements OnModuleInit {
  private readonly logger = new Logger(EventSinkConsumer.name);
  private readonly written: Counter;
  private readonly rejected: Counter;
  private readonly insertDuration: Histogram;

  constructor(
    private readonly bus: MessageBus,
    private readonly store: EventStore,
    metrics: MetricsRegistry,
  ) {
    this.written = metrics.counter({ name: 'guidepost_event_store_events_written_total', help: 'Events written to the event store' });
    this.rejected = metrics.counter({
      name: 'guidepost_event_store_events_rejected_total',
      help: 'Accepted events the event store cannot hold (see the error log for each)',
    });
    this.insertDuration = new Histogram({
      name: 'guidepost_event_store_insert_duration_seconds',
      help: 'Duration of one insert into the event store',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics],
    });
  }

  onModuleInit(): void {
    this.bus.subscribe({ topic: EventsAccepted, group: EVENT_SINK_GROUP, handleBatch: (messages) => this.write(messages) });
  }

  async write(messages: readonly EventsAcceptedMessage[]): Promise<void> {
    for (const [accountId, events] of this.storableEventsByAccount(messages)) {
      for (let start = 0; start < events.length; start += MAX_EVENTS_PER_INSERT) {
        const slice = events.slice(start, start + MAX_EVENTS_PER_INSERT);
        const stopTimer = this.insertDuration.startTimer();
        await this.store.insert(accountId, slice);
        stopTimer();
        this.written.inc(slice.length);
      }
    }
  }

  /** The batch's events by account. One the store cannot hold is logged and counted, so it cannot fail the others forever. */
  private storableEventsByAccount(messages: readonly EventsAcceptedMessage[]): Map<string, RecordedEvent[]> {
    const byAccount = new Map<string, RecordedEvent[]>();
    for (const { id, payload } of messages) {
      const events = byAccount.get(payload.accountId) ?? [];
      for (const event of payload.events) {
        const reason = unstorableReason(event);
        if (reason === undefined) {
          events.push(event);
        } else {
          this.rejected.inc();
          this.logger.error(`event ${event.eventId} of account ${payload.accountId} (message ${id}) was not stored: ${reason}`);
        }
      }
      byAccount.set(payload.accountId, events);
    }
    return byAccount;
  }
}
