import { randomUUID } from 'node:crypto';
import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { EventsAccepted, type RecordedEvent } from '@guidepost/contracts-events';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { Counter } from 'prom-client';
import { INGESTION_SCHEMA } from '../../data-access/ingestion-database';
import { eventsAcceptedCounter } from './events-accepted';
import { type BatchLimits, GroupCommit } from './group-commit';

/**
 * One `EventsAccepted` message carries at most this much: few large writes suit the event store, and
 * a message stays near the 1 MB a Kafka broker takes by default.
 */
export const ACCEPTED_BATCH_LIMITS: BatchLimits = { maxItems: 1_000, maxBytes: 1_000_000 };

interface AcceptedEvent {
  readonly accountId: string;
  readonly event: RecordedEvent;
}

/**
 * Makes tracked events durable: an event counts as accepted once the ingestion outbox holds it
 * (the relay then hands it to the event sink). Events are written by group commit: while one
 * transaction is in flight the next events wait and are then written together, one `EventsAccepted`
 * message per account, so that the transaction cost of the hot path is shared by many requests.
 */
@Injectable()
export class EventIntake implements BeforeApplicationShutdown {
  private readonly logger = new Logger(EventIntake.name);
  private readonly commits = new GroupCommit<AcceptedEvent>((events) => this.commit(events), ACCEPTED_BATCH_LIMITS);

  private readonly accepted: Counter<'intake'>;

  constructor(
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
    metrics: MetricsRegistry,
  ) {
    this.accepted = eventsAcceptedCounter(metrics);
  }

  /** Resolves once the event is committed; rejects when the commit that carried it failed. */
  accept(accountId: string, event: RecordedEvent): Promise<void> {
    return this.commits.submit({ accountId, event }, approximateBytes(event));
  }

  /** Requests already waiting get their answer before the database goes away. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.commits.drained();
  }

  private async commit(events: AcceptedEvent[]): Promise<void> {
    try {
      await this.unitOfWork.run((tx) => {
        for (const [accountId, ofAccount] of byAccount(events)) {
          // Keyed by batch: events carry their own timestamps, so batches need no order between them.
          tx.emit(EventsAccepted, randomUUID(), { accountId, events: ofAccount });
        }
        return Promise.resolve();
      });
      this.accepted.inc({ intake: 'track' }, events.length);
    } catch (error) {
      // Every waiting request fails with this error: a 500, which clients retry (nothing was stored).
      this.logger.error(`${events.length} tracked event(s) could not be committed: ${String(error)}`);
      throw error;
    }
  }
}

function byAccount(events: readonly AcceptedEvent[]): Map<string, RecordedEvent[]> {
  const grouped = new Map<string, RecordedEvent[]>();
  for (const { accountId, event } of events) {
    const ofAccount = grouped.get(accountId);
    if (ofAccount) ofAccount.push(event);
    else grouped.set(accountId, [event]);
  }
  return grouped;
}

/** Size of the event in the message, near enough for a batch limit (UTF-16 units of its JSON). */
function approximateBytes(event: RecordedEvent): number {
  return JSON.stringify(event).length;
}
