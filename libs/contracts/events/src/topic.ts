import type { Static, TSchema } from '@sinclair/typebox';

/**
 * A named, versioned stream of messages with the schema of its payload. Topic names follow
 * `guidepost.<owner>.<event>.v<version>`; a breaking change of a payload gets a new version.
 */
export interface Topic<S extends TSchema = TSchema> {
  readonly name: string;
  readonly schema: S;
  /** What the message key is, so that per-aggregate order holds (messages of one key stay in order). */
  readonly keyedBy: string;
}

export type PayloadOf<T extends Topic> = Static<T['schema']>;

export function defineTopic<S extends TSchema>(name: string, keyedBy: string, schema: S): Topic<S> {
  return { name, keyedBy, schema };
}

/**
 * Where a topic's messages go when a consumer can never handle them (invalid, or failing after every
 * retry), with the reason in their headers: `<topic>.dead-letter`, one per topic whatever the group.
 */
export function deadLetterTopicOf(topicName: string): string {
  return `${topicName}.dead-letter`;
}

/** The envelope every message travels in, on every bus. */
export interface BusMessage<P = unknown> {
  /** Unique and, where the producer can, deterministic: a redelivery carries the same id. */
  readonly id: string;
  readonly topic: string;
  readonly key: string;
  readonly occurredAt: string;
  readonly payload: P;
}
