import type { Admin, ITopicConfig } from 'kafkajs';
import { deadLetterTopicOf } from '@guidepost/contracts-events';

/** Import batches are up to about 8 MB of JSON; a topic accepts records twice that size. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface TopicLayout {
  readonly partitions: number;
  readonly replicationFactor: number;
}

/**
 * Where the contracts' names live on Kafka. With a namespace (several installations, or test runs,
 * sharing one cluster) every topic and consumer group is prefixed `<namespace>.`; handlers still see
 * the contract's topic name in their messages.
 */
export class KafkaNames {
  private readonly prefix: string;

  constructor(namespace: string | undefined) {
    this.prefix = namespace ? `${namespace}.` : '';
  }

  topic(contractTopic: string): string {
    return `${this.prefix}${contractTopic}`;
  }

  deadLetterTopic(contractTopic: string): string {
    return this.topic(deadLetterTopicOf(contractTopic));
  }

  group(group: string): string {
    return `${this.prefix}${group}`;
  }

  /** Every Kafka topic the bus uses for these contract topics: each one and its dead-letter topic. */
  topicsWithDeadLetters(contractTopics: Iterable<string>): string[] {
    return [...new Set([...contractTopics].flatMap((name) => [this.topic(name), this.deadLetterTopic(name)]))];
  }
}

/**
 * Creates the topics that do not exist yet. Topics are never auto-created (a typo would silently make
 * a topic nobody reads), so start-up makes them all. Several services start at once: a topic another
 * one created meanwhile counts as made (kafkajs answers false when every error is "already exists").
 * Existing topics are left as they are: changing partitions or settings is an operator's decision.
 */
export async function createMissingTopics(admin: Admin, topicNames: readonly string[], layout: TopicLayout): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = topicNames.filter((name) => !existing.has(name));
  if (missing.length === 0) return [];
  await admin.createTopics({ topics: missing.map((name) => topicConfig(name, layout)), waitForLeaders: true });
  return missing;
}

/**
 * A topic as the bus creates it. A write acknowledged with acks = all (a tracked event, in the
 * distributed shape, has no other durable copy) is only as safe as the in-sync replicas that must hold
 * it: with a replication factor of 3, two of them (`min.insync.replicas`), so that losing the leader
 * right after an acknowledgement loses nothing, and one broker may be down without stopping writes.
 */
export function topicConfig(topic: string, layout: TopicLayout): ITopicConfig {
  return {
    topic,
    numPartitions: layout.partitions,
    replicationFactor: layout.replicationFactor,
    configEntries: [
      { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) },
      { name: 'min.insync.replicas', value: String(Math.max(1, layout.replicationFactor - 1)) },
    ],
  };
}
