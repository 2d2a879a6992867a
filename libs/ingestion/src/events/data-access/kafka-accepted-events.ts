import { randomUUID } from 'node:crypto';
import { EventsAccepted } from '@guidepost/contracts-events';
import type { MessageBus, OutgoingMessage } from '@guidepost/platform-bus';
import { TransientFailure } from '@guidepost/platform-failures';
import { AcceptedEventsLog, type AccountEvents } from '../application/accepted-events-log.port';

/**
 * How long an append waits for Kafka before it is refused. A healthy broker acknowledges within
 * milliseconds, and a leader election takes a few seconds; during an outage, a track request is
 * answered 503 with `Retry-After` instead of waiting for the producer's own retries (about a minute,
 * past the gateway's wait for a service). Appends run one at a time, so a request queued behind an
 * overdue one waits at most twice this.
 */
export const KAFKA_ACKNOWLEDGEMENT_DEADLINE_MS = 5_000;

/** Kafka did not acknowledge in time: the events are not known to be durable, so they must not be acknowledged. */
export class KafkaAcknowledgementOverdue extends TransientFailure {
  constructor(deadlineMs: number) {
    super(`Kafka did not acknowledge the accepted events within ${deadlineMs / 1000} s`);
    this.name = 'KafkaAcknowledgementOverdue';
  }
}

/**
 * Accepted events are durable once Kafka has them: the bus's idempotent producer sends each append as
 * one produce request with `acks = all` (every in-sync replica wrote it), and `append` resolves only
 * then. No outbox row is written, read back and published again. Each message's id is fixed before the
 * first attempt, so the producer's resends carry the same one; events carry the ids intake gave them,
 * which is what the event sink deduplicates by, so a message written twice still stores each event once.
 */
export class KafkaAcceptedEvents extends AcceptedEventsLog {
  constructor(
    private readonly bus: MessageBus,
    private readonly deadlineMs = KAFKA_ACKNOWLEDGEMENT_DEADLINE_MS,
  ) {
    super();
  }

  async append(batches: readonly AccountEvents[]): Promise<void> {
    const occurredAt = new Date().toISOString();
    const messages = batches.map(({ accountId, events }): OutgoingMessage => {
      const id = randomUUID();
      // Keyed by batch: events carry their own timestamps, so batches need no order between them.
      return { id, topic: EventsAccepted.name, key: id, payload: { accountId, events }, occurredAt };
    });
    await withinDeadline(this.bus.publish(messages), this.deadlineMs);
  }
}

/**
 * `work`, or a `KafkaAcknowledgementOverdue` once `deadlineMs` passed. The publish itself goes on (the
 * producer cannot be told to stop): events it writes late are stored although refused, as after any
 * lost answer, and a client's retry with the same `event_id` is still stored once.
 */
async function withinDeadline(work: Promise<void>, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new KafkaAcknowledgementOverdue(deadlineMs)), deadlineMs);
  });
  try {
    await Promise.race([work, overdue]);
  } finally {
    clearTimeout(timer);
    // A publish that fails after the deadline has nobody left to tell: its failure was already answered.
    work.catch(() => undefined);
  }
}
