import type { IHeaders, KafkaMessage, Message, TopicMessages } from 'kafkajs';
import type { BusMessage } from '@guidepost/contracts-events';
import type { ConsumerDeadLetter } from '../dead-letter-recorder.port';
import type { OutgoingMessage } from '../message-bus.port';

/**
 * How the envelope travels in a Kafka record: the key is the message key (so one aggregate stays on
 * one partition, in order), the value is the payload as JSON, and the rest of the envelope rides in
 * headers.
 */
export const EnvelopeHeader = { messageId: 'message-id', occurredAt: 'occurred-at' } as const;

/** Headers a dead-lettered record carries besides its own, so that an operator can tell what failed, where and why. */
export const DeadLetterHeader = {
  originalTopic: 'original-topic',
  originalPartition: 'original-partition',
  originalOffset: 'original-offset',
  consumerGroup: 'consumer-group',
  reason: 'reason',
  attempts: 'attempts',
  failedAt: 'failed-at',
} as const;

/**
 * A record that replays a dead letter carries the one consumer group it is for (the contract's name);
 * every other group's consumer commits past it without handling it, since they handled the message
 * the first time.
 */
export const REDELIVERED_TO_GROUP_HEADER = 'redelivered-to-group';

/** A record as this adapter produces it: always a text key and a JSON value. */
export type OutgoingRecord = Message & { readonly key: string; readonly value: string };

export function toRecord(message: OutgoingMessage): OutgoingRecord {
  return {
    key: message.key,
    value: JSON.stringify(message.payload),
    headers: { [EnvelopeHeader.messageId]: message.id, [EnvelopeHeader.occurredAt]: message.occurredAt },
  };
}

/** The record that delivers `message` again to `group` only. */
export function redeliveryRecord(message: OutgoingMessage, group: string): OutgoingRecord {
  const record = toRecord(message);
  return { ...record, headers: { ...record.headers, [REDELIVERED_TO_GROUP_HEADER]: group } };
}

/** Why a consumer of `group` passes over this record without handling it, or undefined when it is its own to handle. */
export function passOverReason(record: KafkaMessage, group: string): string | undefined {
  const target = headerText(record.headers, REDELIVERED_TO_GROUP_HEADER);
  return target === undefined || target === group ? undefined : `redelivered to consumer group ${target} only`;
}

/** A received record read back into the envelope, or why it cannot be one (it can then never be handled). */
export type DecodedRecord = { readonly message: BusMessage } | { readonly problem: string };

/** Reads a received record back into the envelope. The payload's schema is checked separately, per topic. */
export function fromRecord(topic: string, record: KafkaMessage): DecodedRecord {
  const id = headerText(record.headers, EnvelopeHeader.messageId);
  const occurredAt = headerText(record.headers, EnvelopeHeader.occurredAt);
  if (!id) return { problem: `the record has no ${EnvelopeHeader.messageId} header` };
  if (!occurredAt) return { problem: `the record has no ${EnvelopeHeader.occurredAt} header` };
  if (record.key === null) return { problem: 'the record has no key' };
  if (record.value === null) return { problem: 'the record has no value' };
  let payload: unknown;
  try {
    payload = JSON.parse(record.value.toString('utf8'));
  } catch (error) {
    return { problem: `the value is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { message: { id, topic, key: record.key.toString('utf8'), occurredAt, payload } };
}

export interface DeadLetterContext {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly group: string;
  readonly reason: string;
  /** Handler runs that failed; 0 when the record could never be handled (not JSON, invalid payload). */
  readonly attempts: number;
  readonly failedAt: Date;
}

/** The record as it goes to the dead-letter topic: same key and value as received (even when not JSON), its headers, and why. */
export function deadLetterRecord(record: KafkaMessage, context: DeadLetterContext): Message {
  return {
    key: record.key,
    value: record.value,
    headers: {
      ...record.headers,
      [DeadLetterHeader.originalTopic]: context.topic,
      [DeadLetterHeader.originalPartition]: String(context.partition),
      [DeadLetterHeader.originalOffset]: context.offset,
      [DeadLetterHeader.consumerGroup]: context.group,
      [DeadLetterHeader.reason]: context.reason,
      [DeadLetterHeader.attempts]: String(context.attempts),
      [DeadLetterHeader.failedAt]: context.failedAt.toISOString(),
    },
  };
}

/** What a consumer keeps of a record it gave up on: everything it carried, read as far as it can be. */
export function consumerDeadLetterOf(
  record: KafkaMessage,
  where: { readonly topic: string; readonly group: string; readonly partition: number },
  failure: { readonly reason: string; readonly attempts: number; readonly failedAt: Date },
): ConsumerDeadLetter {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(record.headers ?? {})) {
    const text = headerText(record.headers, name);
    if (text !== undefined) headers[name] = text;
  }
  const text = record.value?.toString('utf8');
  let payload: unknown;
  let rawValue: string | undefined;
  if (text !== undefined) {
    try {
      payload = JSON.parse(text);
    } catch {
      rawValue = text;
    }
  }
  return {
    topic: where.topic,
    group: where.group,
    messageId: headers[EnvelopeHeader.messageId],
    key: record.key?.toString('utf8'),
    payload,
    rawValue,
    headers,
    occurredAt: headers[EnvelopeHeader.occurredAt],
    reason: failure.reason,
    attempts: failure.attempts,
    partition: where.partition,
    offset: record.offset,
    failedAt: failure.failedAt,
  };
}

/** The text of a header (the first value when it was sent several times), or undefined. */
export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/**
 * Splits messages into produce requests of at most `maxBytes` of keys and values (a larger message
 * goes alone), each request grouping its messages by topic in their order. Requests are sent one
 * after the other, so order holds across them; the cap keeps a request's per-partition batch under
 * the broker's message size limit when several large messages (import batches) are published at once.
 */
export function produceRequestsOf(messages: readonly OutgoingMessage[], maxBytes: number): TopicMessages[][] {
  const requests: TopicMessages[][] = [];
  let current: TopicMessages[] = [];
  let currentBytes = 0;
  for (const message of messages) {
    const record = toRecord(message);
    const bytes = Buffer.byteLength(record.key) + Buffer.byteLength(record.value);
    if (current.length > 0 && currentBytes + bytes > maxBytes) {
      requests.push(current);
      current = [];
      currentBytes = 0;
    }
    const ofTopic = current.find((entry) => entry.topic === message.topic);
    if (ofTopic) ofTopic.messages.push(record);
    else current.push({ topic: message.topic, messages: [record] });
    currentBytes += bytes;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/** The offset to commit once `offset` is done: Kafka commits the next offset to read. */
export function offsetAfter(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}

/** Messages of a partition not yet handled when the next one to handle is `nextOffset`. */
export function lagBefore(highWatermark: string, nextOffset: string): number {
  const lag = BigInt(highWatermark) - BigInt(nextOffset);
  return lag > 0n ? Number(lag) : 0;
}
