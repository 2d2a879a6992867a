import type { RecordedEvent } from '@guidepost/contracts-events';

/** The events of one account that one `EventsAccepted` message carries. */
export interface AccountEvents {
  readonly accountId: string;
  readonly events: RecordedEvent[];
}

/**
 * Where tracked events become durable: once `append` resolved, its events reach the event store
 * whatever fails next; when it rejects, the caller must not acknowledge them. Adapters, chosen by the
 * host's configuration: the service's PostgreSQL outbox (standalone: the bus there is in process and
 * keeps nothing), and Kafka itself (distributed: the bus is a durable log, so an outbox row would only
 * be written, read back and published again).
 */
export abstract class AcceptedEventsLog {
  /** One `EventsAccepted` message per entry; resolves once all of them are durable. */
  abstract append(batches: readonly AccountEvents[]): Promise<void>;
}
