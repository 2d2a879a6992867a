import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { RecordedEvent } from '@guidepost/contracts-events';
import { AppConfig } from '@guidepost/platform-config';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { Counter } from 'prom-client';
import { AcceptedEventsLog, type AccountEvents } from './accepted-events-log.port';
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
 * Makes tracked events durable: an event counts as accepted once the `AcceptedEventsLog` holds it (the
 * outbox in the standalone shape, Kafka in the distributed one). Events are written by group commit:
 * while one append is in flight the next events wait and are then written together, one
 * `EventsAccepted` message per account, so that the cost of the hot path's durable write (a
 * transaction, a produce request) is shared by many requests.
 */
@Injectable()
export class EventIntake implements BeforeApplicationShutdown {
  private readonly logger = new Logger(EventIntake.name);
  private readonly commits: GroupCommit<AcceptedEvent>;
  private readonly accepted: Counter<'intake'>;

  constructor(
    private readonly log: AcceptedEventsLog,
    metrics: MetricsRegistry,
    config: AppConfig,
  ) {
    this.commits = new GroupCommit((events) => this.commit(events), { ...ACCEPTED_BATCH_LIMITS, lingerMs: config.trackCommitLingerMs });
    this.accepted = eventsAcceptedCounter(metrics);
  }

  /** Resolves once the event is committed; rejects when the commit that carried it failed. */
  accept(accountId: string, event: RecordedEvent): Promise<void> {
    return this.commits.submit({ accountId, event }, approximateBytes(event));
  }

  /** Requests already waiting get their answer before the database or the producer goes away. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.commits.drained();
  }

  private async commit(events: AcceptedEvent[]): Promise<void> {
    try {
      await this.log.append(byAccount(events));
      this.accepted.inc({ intake: 'track' }, events.length);
    } catch (error) {
      // Every waiting request fails with this error: a 503 when the store is down or slow, else a 500; clients retry either.
      this.logger.error(`${events.length} tracked event(s) could not be committed: ${String(error)}`);
      throw error;
    }
  }
}

function byAccount(events: readonly AcceptedEvent[]): AccountEvents[] {
  const grouped = new Map<string, RecordedEvent[]>();
  for (const { accountId, event } of events) {
    const ofAccount = grouped.get(accountId);
    if (ofAccount) ofAccount.push(event);
    else grouped.set(accountId, [event]);
  }
  return [...grouped].map(([accountId, ofAccount]) => ({ accountId, events: ofAccount }));
}

/** Size of the event in the message, near enough for a batch limit (UTF-16 units of its JSON). */
function approximateBytes(event: RecordedEvent): number {
  return JSON.stringify(event).length;
}
