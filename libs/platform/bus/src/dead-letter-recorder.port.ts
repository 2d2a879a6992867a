/**
 * A message a consumer group gave up on (see `classifyFailure`), as a consumer of the Kafka bus
 * received it. Every field the record carried is kept, even when it could not be read as a message
 * (no id, no key, a value that is not JSON), so that an operator sees exactly what arrived.
 */
export interface ConsumerDeadLetter {
  /** The contract's topic name (without the installation's namespace). */
  readonly topic: string;
  /** The contract's consumer group name (without the namespace). */
  readonly group: string;
  /** The envelope's `message-id`; undefined when the record had none. */
  readonly messageId: string | undefined;
  readonly key: string | undefined;
  /** The value parsed as JSON; undefined when it was not JSON (see `rawValue`) or absent. */
  readonly payload: unknown;
  /** The value as text when it was not JSON. */
  readonly rawValue: string | undefined;
  /** The record's headers as text (the envelope's and any other). */
  readonly headers: Readonly<Record<string, string>>;
  readonly occurredAt: string | undefined;
  readonly reason: string;
  /** Handler runs that failed; 0 when the record could never be handled. */
  readonly attempts: number;
  /** Where it was read: partition and offset on the topic. */
  readonly partition: number | undefined;
  readonly offset: string | undefined;
  readonly failedAt: Date;
}

/**
 * Keeps the messages a consumer gives up on where an operator can see and replay them: the distributed
 * host binds it to the `dead_letters` table of its service's schema (platform-database). Optional: a
 * bus without one only produces its dead letters to the dead-letter topics.
 */
export abstract class DeadLetterRecorder {
  /** Resolves once the dead letter is durable; recording one again (a redelivery) replaces it. */
  abstract record(deadLetter: ConsumerDeadLetter): Promise<void>;
}
