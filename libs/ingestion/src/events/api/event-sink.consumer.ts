import { type BeforeApplicationShutdown, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { type BusMessage, EventsAccepted, type PayloadOf } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { AppConfig } from '@guidepost/platform-config';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { AccountEvent } from '../application/event-store.port';
import { EventWrites } from '../application/event-writes';
import { InsertGatherer } from '../application/insert-gatherer';
import { unstorableReason } from '../domain/storable-event';

export const EVENT_SINK_GROUP = 'ingestion.event-sink';

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
  private readonly rejected: Counter;

  constructor(
    private readonly bus: MessageBus,
    writes: EventWrites,
    metrics: MetricsRegistry,
    config: AppConfig,
  ) {
    this.gatherer = new InsertGatherer((events) => writes.write(events), {
      maxItems: config.eventSinkMaxRows,
      maxWaitMs: config.eventSinkMaxWaitMs,
    });
    this.rejected = metrics.counter({
      name: 'guidepost_event_store_events_rejected_total',
      help: 'Accepted events the event store cannot hold (see the error log for each)',
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
