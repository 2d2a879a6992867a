import { randomUUID } from 'node:crypto';
import { EventsAccepted } from '@guidepost/contracts-events';
import type { MessageBus, OutgoingMessage } from '@guidepost/platform-bus';
import { withDeadline } from '@guidepost/platform-failures';
import { AcceptedEventsLog, type AccountEvents } from '../application/accepted-events-log.port';

/**
 * Accepted events are durable once Kafka has them: the bus's idempotent producer sends each append as
 * one produce request with `acks = all` (every in-sync replica wrote it), and `append` resolves only
 * then. No outbox row is written, read back and published again. Each message's id is fixed before the
 * first attempt, so the producer's resends carry the same one; events carry the ids intake gave them,
 * which is what the event sink deduplicates by, so a message written twice still stores each event once.
 *
 * An append waits at most `waitLimitMs` for Kafka (`GUIDEPOST_DEPENDENCY_TIMEOUT_MS`): a healthy broker
 * acknowledges within milliseconds and a leader election takes a few seconds, while the producer's own
 * retries of a broker that is down or frozen take about a minute, past the gateway's wait for a service.
 * An overdue append is refused (503 with `Retry-After`); the publish itself goes on (the producer cannot
 * be told to stop), so events it writes late are stored although refused, as after any lost answer, and
 * a client's retry with the same `event_id` is still stored once. Appends run one at a time, so a request
 * queued behind an overdue one waits at most twice the limit.
 */
export class KafkaAcceptedEvents extends AcceptedEventsLog {
  constructor(
    private readonly bus: MessageBus,
    private readonly waitLimitMs: number,
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
    await withDeadline(this.bus.publish(messages), this.waitLimitMs, 'Kafka');
  }
}
