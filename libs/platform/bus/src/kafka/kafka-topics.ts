import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, ITopicConfig } from 'kafkajs';
import { deadLetterTopicOf } from '@guidepost/contracts-events';
import { reasonOf } from '@guidepost/platform-failures';

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

/** How long start-up waits for every partition of the bus's topics to be served by its leader. */
const SERVED_WAIT_MS = 60_000;
const SERVED_POLL_MS = 200;

/**
 * Creates the topics that do not exist yet, and returns once the leader of each partition of every
 * topic serves it. Topics are never auto-created (a typo would silently make a topic nobody reads), so
 * start-up makes them all. Several services start at once: a topic another one created meanwhile
 * counts as made (kafkajs answers false when every error is "already exists"). Existing topics are
 * left as they are: changing partitions or settings is an operator's decision.
 */
export async function createMissingTopics(
  admin: Admin,
  topicNames: readonly string[],
  layout: TopicLayout,
  servedWaitMs = SERVED_WAIT_MS,
): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = topicNames.filter((name) => !existing.has(name));
  // kafkajs's own wait for leaders gives up at the first "This server does not host this
  // topic-partition", which a topic just created (here or by a service starting beside this one)
  // may be answered with for a moment on a busy broker.
  const created =
    missing.length > 0 && (await admin.createTopics({ topics: missing.map((name) => topicConfig(name, layout)), waitForLeaders: false }));
  await awaitServedPartitions(admin, topicNames, servedWaitMs);
  return created ? missing : [];
}

/**
 * Waits until the leader of every partition of the topics serves it (answers its offsets), trying the
 * topics not served yet again until the wait runs out. A broker takes up a leadership a moment after
 * the cluster's metadata names it, and answers "not the leader" or "does not host this
 * topic-partition" meanwhile.
 */
async function awaitServedPartitions(admin: Admin, topicNames: readonly string[], waitMs: number): Promise<void> {
  const until = Date.now() + waitMs;
  let unserved = await unservedTopics(admin, topicNames);
  while (unserved.size > 0) {
    if (Date.now() >= until) {
      const reasons = [...unserved].map(([topic, reason]) => `${topic} (${reason})`);
      throw new Error(`Kafka did not serve every partition within ${waitMs} ms: ${reasons.join(', ')}`);
    }
    await sleep(SERVED_POLL_MS);
    unserved = await unservedTopics(admin, [...unserved.keys()]);
  }
}

/** The topics some partition of which is not served yet, each with the broker's answer. */
async function unservedTopics(admin: Admin, topicNames: readonly string[]): Promise<Map<string, string>> {
  const outcomes = await Promise.allSettled(topicNames.map((topic) => admin.fetchTopicOffsets(topic)));
  return new Map(
    outcomes.flatMap((outcome, index): [string, string][] =>
      outcome.status === 'rejected' ? [[topicNames[index], reasonOf(outcome.reason)]] : [],
    ),
  );
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
