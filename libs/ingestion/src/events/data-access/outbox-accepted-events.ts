import { randomUUID } from 'node:crypto';
import { EventsAccepted } from '@guidepost/contracts-events';
import type { UnitOfWork } from '@guidepost/platform-database';
import { withDeadline } from '@guidepost/platform-failures';
import { AcceptedEventsLog, type AccountEvents } from '../application/accepted-events-log.port';

/**
 * Accepted events are durable once the ingestion outbox holds them, in one transaction for the whole
 * append; the outbox relay then hands them to the bus. For a bus that keeps nothing (in process).
 *
 * An append waits at most `waitLimitMs` for its commit (`GUIDEPOST_DEPENDENCY_TIMEOUT_MS`): each query
 * of a transaction is bounded by the pool, but a frozen PostgreSQL would make a client wait for every
 * one of them in turn (begin, insert, rollback). An overdue append is refused (503 with `Retry-After`);
 * its transaction may still commit once PostgreSQL answers, as after any lost answer, and a client's
 * retry with the same `event_id` is still stored once.
 */
export class OutboxAcceptedEvents extends AcceptedEventsLog {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly waitLimitMs: number,
  ) {
    super();
  }

  async append(batches: readonly AccountEvents[]): Promise<void> {
    const committed = this.unitOfWork.run((tx) => {
      // Keyed by batch: events carry their own timestamps, so batches need no order between them.
      for (const { accountId, events } of batches) tx.emit(EventsAccepted, randomUUID(), { accountId, events });
      return Promise.resolve();
    });
    await withDeadline(committed, this.waitLimitMs, 'PostgreSQL');
  }
}
