import type { BusMessage, PayloadOf, Topic } from '@guidepost/contracts-events';

/** A message on its way out; the bus fills in nothing, so ids stay deterministic end to end. */
export type OutgoingMessage = BusMessage<unknown>;

interface SubscriptionBase<T extends Topic> {
  readonly topic: T;
  /** Consumer group: every group receives every message once; members of one group share them. */
  readonly group: string;
  /**
   * Called when a message is given up on (a permanent failure, or an unrecognised one that kept
   * failing), before it is dead-lettered: a job worker ends its job `Failed` with the reason here, so
   * that no job waits for ever. A message held back by a transient failure is never given up on.
   */
  readonly onGiveUp?: (message: BusMessage<PayloadOf<T>>, reason: string) => Promise<void>;
}

/**
 * Handles one message at a time. Throwing means "not done": the message is delivered again later, for
 * as long as the failure is transient (see `classifyFailure`), else until it is given up on.
 */
export interface SingleMessageSubscription<T extends Topic> extends SubscriptionBase<T> {
  readonly handle: (message: BusMessage<PayloadOf<T>>) => Promise<void>;
}

/**
 * Handles messages in batches, for high-volume consumers (the event sink) whose store wants few
 * large writes. Resolving means every message of the batch is durably handled; throwing means none
 * is, and the whole batch is delivered again, so the handler must be idempotent.
 */
export interface BatchSubscription<T extends Topic> extends SubscriptionBase<T> {
  readonly handleBatch: (messages: readonly BusMessage<PayloadOf<T>>[]) => Promise<void>;
}

export type Subscription<T extends Topic> = SingleMessageSubscription<T> | BatchSubscription<T>;

/**
 * The bus port. Producers append to their outbox inside their own transaction and the outbox relay
 * publishes (see platform-database). The one exception is track in the distributed shape, which has no
 * state of its own to commit with the message: Kafka, a durable log, is where it is kept, and the
 * request is answered once `publish` resolved (the ingestion service's `KafkaAcceptedEvents`).
 * Adapters: in-process for the standalone shape, Kafka for the distributed one.
 */
export abstract class MessageBus {
  /** Resolves once every message is durable on the bus (in process: once every subscriber handled it). */
  abstract publish(messages: readonly OutgoingMessage[]): Promise<void>;
  abstract subscribe<T extends Topic>(subscription: Subscription<T>): void;
  /**
   * Delivers a message again to one consumer group only: the replay of a dead letter that group gave
   * up on (the other groups handled the message already). On Kafka the message is produced to its
   * topic again, marked for that group, and the other groups' consumers commit past it unhandled; in
   * process, that group's handler runs at once. Resolves once the message is durable on the bus (in
   * process: once the group handled it). Handlers are idempotent, so a message the group has handled
   * meanwhile changes nothing.
   */
  abstract redeliver(message: OutgoingMessage, group: string): Promise<void>;
}
