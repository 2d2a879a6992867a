import { randomUUID } from 'node:crypto';
import { EventsAccepted } from '@guidepost/contracts-events';
import type { UnitOfWork } from '@guidepost/platform-database';
import { AcceptedEventsLog, type AccountEvents } from '../application/accepted-events-log.port';

/**
 * Accepted events are durable once the ingestion outbox holds them, in one transaction for the whole
 * append; the outbox relay then hands them to the bus. For a bus that keeps nothing (in process).
 */
export class OutboxAcceptedEvents extends AcceptedEventsLog {
  constructor(private readonly unitOfWork: UnitOfWork) {
    super();
  }

  append(batches: readonly AccountEvents[]): Promise<void> {
    return this.unitOfWork.run((tx) => {
      // Keyed by batch: events carry their own timestamps, so batches need no order between them.
      for (const { accountId, events } of batches) tx.emit(EventsAccepted, randomUUID(), { accountId, events });
      return Promise.resolve();
    });
  }
}
