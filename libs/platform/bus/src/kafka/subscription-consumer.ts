import { Logger } from '@nestjs/common';
import type { Consumer, ConsumerConfig, EachBatchPayload, Kafka, KafkaMessage, Message } from 'kafkajs';
import type { BusMessage, Topic } from '@guidepost/contracts-events';
import type { KafkaBatchFetch } from '@guidepost/platform-config';
import type { DeadLetterRecorder } from '../dead-letter-recorder.port';
import type { Subscription } from '../message-bus.port';
import { assertValidPayload } from '../payload-validator';
import type { KafkaBusMetrics } from './kafka-bus-metrics';
import type { KafkaNames } from './kafka-topics';
import {
  consumerDeadLetterOf,
  deadLetterRecord,
  EnvelopeHeader,
  fromRecord,
  headerText,
  lagBefore,
  offsetAfter,
  passOverReason,
} from './kafka-records';
import { deliverAsBatch, deliverOneByOne, type DeliverySteps, type ReceivedRecord } from '../delivery/partition-delivery';
import { attemptWithBackoff, type AttemptOutcome, reasonOf, type RetryPolicy } from '../delivery/retry';

/**
 * kafkajs' defaults, stated because the heartbeat loop below relies on them: a member that sends no
 * heartbeat for `SESSION_TIMEOUT_MS` is evicted and its partitions go to another member.
 */
const SESSION_TIMEOUT_MS = 30_000;
const HEARTBEAT_INTERVAL_MS = 3_000;
/**
 * After a crash kafkajs does not restart from, a new consumer joins after this long, twice as long
 * after each failed attempt up to the ceiling, until one joins: the broker may be back at any time.
 */
const FIRST_REJOIN_DELAY_MS = 1_000;
const MAX_REJOIN_DELAY_MS = 30_000;

export interface ConsumerDependencies {
  readonly names: KafkaNames;
  readonly metrics: KafkaBusMetrics;
  readonly retry: RetryPolicy;
  /** Produces to a dead-letter topic; resolves once the broker acknowledged. */
  readonly sendDeadLetter: (topic: string, record: Message) => Promise<void>;
  /** Keeps dead letters where an operator can list and replay them (the service's schema), when the host binds one. */
  readonly recorder?: DeadLetterRecorder;
  /** How a batch subscription's fetches gather records; single-message ones answer at the first record. */
  readonly batchFetch: KafkaBatchFetch;
}

/** A received record with what it arrived as, which is what a dead letter carries on. */
interface KafkaRecord extends ReceivedRecord<BusMessage> {
  readonly raw: KafkaMessage;
}

/** Partitions a batch subscription's member handles at once (at most the partitions it was assigned). */
const BATCH_PARTITIONS_CONCURRENTLY = 6;
/**
 * The kafkajs consumer of one subscription: its own consumer group member, so that the replicas of
 * a service share the topic's partitions. Records are delivered per partition batch with the rules of
 * `partition-delivery`; offsets are committed only once the handler resolved (or the message was
 * dead-lettered), never on a timer.
 */
export class SubscriptionConsumer {
  private readonly logger: Logger;
  /** The contract's topic and group: metric labels, and what handlers see. */
  private readonly labels: { topic: string; group: string };
  /** The same on Kafka (with the installation's namespace). */
  private readonly kafkaTopic: string;
  private readonly kafkaGroup: string;
  /** Aborted when the application stops: a failing handler is then abandoned, not retried or dead-lettered. */
  private readonly stopping = new AbortController();
  private consumer: Consumer | undefined;
  private joined = false;
  /** The partitions of the last join, so that a rejoin that changes nothing is not logged again. */
  private assignment: string | undefined;
  /** The partitions this member owns since its last join: the lag it reports is theirs only. */
  private owned: readonly number[] = [];
  /** Why the consumer stopped (a crash kafkajs does not restart from), until a new one joins the group. */
  private crashed: string | undefined;
  private kafka: Kafka | undefined;
  private rejoinTimer: NodeJS.Timeout | undefined;
  private rejoinDelayMs = FIRST_REJOIN_DELAY_MS;

  constructor(
    private readonly subscription: Subscription<Topic>,
    private readonly dependencies: ConsumerDependencies,
  ) {
    this.labels = { topic: subscription.topic.name, group: subscription.group };
    this.kafkaTopic = dependencies.names.topic(subscription.topic.name);
    this.kafkaGroup = dependencies.names.group(subscription.group);
    this.logger = new Logger(`KafkaConsumer(${subscription.group})`);
  }

  consumes(topic: string, group: string): boolean {
    return this.labels.topic === topic && this.labels.group === group;
  }

  /** Connects and subscribes; joining the group goes on in the background, and `notReadyReason` tells when it is done. */
  async start(kafka: Kafka): Promise<void> {
    this.kafka = kafka;
    await this.startConsumer(kafka);
  }

  private async startConsumer(kafka: Kafka): Promise<void> {
    const consumer = kafka.consumer({
      groupId: this.kafkaGroup,
      allowAutoTopicCreation: false,
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      ...this.fetchSettings(),
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => this.onJoin(payload.memberAssignment[this.kafkaTopic] ?? []));
    consumer.on(consumer.events.CRASH, ({ payload }) => this.onCrash(payload.error, payload.restart));
    this.consumer = consumer;
    await consumer.connect();
    // From the beginning: a group's first start must not skip what was published before it existed.
    await consumer.subscribe({ topics: [this.kafkaTopic], fromBeginning: true });
    consumer
      .run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        // A batch handler (the event sink) gathers the batches of several partitions into one write;
        // order within each partition still holds.
        partitionsConsumedConcurrently: 'handleBatch' in this.subscription ? BATCH_PARTITIONS_CONCURRENTLY : 1,
        eachBatch: (payload) => this.deliverBatch(payload),
      })
      .catch((error: unknown) => this.onCrash(error, false));
  }

  /**
   * A batch subscription (the event sink, fed by every tracked event) gathers records on the broker
   * before it is answered, instead of being woken by each produce request: its handler gathers them
   * for a while anyway (`InsertGatherer`). Job workers and the like keep kafkajs' defaults: the broker
   * answers at the first record, and an idle fetch waits 5 s.
   */
  private fetchSettings(): Pick<ConsumerConfig, 'minBytes' | 'maxWaitTimeInMs'> {
    if (!('handleBatch' in this.subscription)) return {};
    const { minBytes, maxWaitMs } = this.dependencies.batchFetch;
    return { minBytes, maxWaitTimeInMs: maxWaitMs };
  }

  /** Finishes the handler run in hand (committing it if it succeeded), then leaves the group. */
  async stop(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.rejoinTimer);
    this.joined = false;
    await this.consumer?.disconnect();
  }

  /** Undefined when the consumer is a member of its group; otherwise what is wrong. */
  notReadyReason(): string | undefined {
    if (this.crashed) return `consumer group ${this.kafkaGroup} of ${this.kafkaTopic} stopped: ${this.crashed}`;
    return this.joined ? undefined : `consumer group ${this.kafkaGroup} of ${this.kafkaTopic} has not joined yet`;
  }

  /**
   * Logs the partitions this member got. kafkajs joins again after some errors (a topic created a
   * moment ago has no partition leaders yet), so a join that changes nothing goes to debug.
   */
  private onJoin(partitions: number[]): void {
    this.joined = true;
    if (this.crashed !== undefined)
      this.logger.log(`consumer group ${this.kafkaGroup} of ${this.kafkaTopic} consumes again after: ${this.crashed}`);
    this.crashed = undefined;
    this.rejoinDelayMs = FIRST_REJOIN_DELAY_MS;
    const sorted = [...partitions].sort((a, b) => a - b);
    const assigned = sorted.length > 0 ? `partitions ${sorted.join(', ')}` : 'no partitions (more members than partitions)';
    const line = `consumer group ${this.kafkaGroup} joined on ${this.kafkaTopic}: ${assigned}`;
    if (assigned === this.assignment) this.logger.debug(line);
    else this.logger.log(line);
    this.assignment = assigned;
    this.forgetLagOfPartitionsHandedOver(partitions);
  }

  /**
   * A rebalance handed some partitions to other members (a replica added, say): their lag is now
   * reported by their new owner, so this member stops reporting its last value of it, which would
   * otherwise stay in `guidepost_bus_consumer_lag` for ever and hide the real lag behind a stale one.
   */
  private forgetLagOfPartitionsHandedOver(partitions: readonly number[]): void {
    for (const partition of this.owned) {
      if (!partitions.includes(partition)) this.dependencies.metrics.lag.remove({ ...this.labels, partition });
    }
    this.owned = [...partitions];
  }

  /**
   * kafkajs restarts a consumer after most crashes (it then joins again). Some it gives up on, such as
   * "Failed to find group coordinator" when its lookups ran out of retries while a restarted broker was
   * still electing one: the consumer is then disconnected, and left alone it would never consume again
   * while messages already acknowledged to clients wait in Kafka. So a new consumer takes its place,
   * with a growing delay until one joins; the service is unready meanwhile.
   */
  private onCrash(error: unknown, restarting: boolean): void {
    this.joined = false;
    if (this.stopping.signal.aborted) return;
    if (restarting) {
      this.logger.warn(`consumer group ${this.kafkaGroup} of ${this.kafkaTopic} crashed and restarts: ${reasonOf(error)}`);
      return;
    }
    this.crashed = reasonOf(error);
    // The crash event and the rejected run() may both report one crash: one new consumer is enough.
    if (this.rejoinTimer !== undefined) return;
    const delayMs = this.rejoinDelayMs;
    this.rejoinDelayMs = Math.min(delayMs * 2, MAX_REJOIN_DELAY_MS);
    this.logger.error(
      `consumer group ${this.kafkaGroup} of ${this.kafkaTopic} stopped: ${this.crashed}; a new consumer joins in ${delayMs} ms`,
    );
    this.rejoinTimer = setTimeout(() => void this.rejoin(), delayMs);
  }

  private async rejoin(): Promise<void> {
    this.rejoinTimer = undefined;
    if (this.stopping.signal.aborted || this.kafka === undefined) return;
    const previous = this.consumer;
    try {
      await previous?.disconnect();
      if (this.stopping.signal.aborted) return;
      await this.startConsumer(this.kafka);
    } catch (error) {
      this.onCrash(error, false);
    }
  }

  private async deliverBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const first = batch.firstOffset();
    if (first === null) return;
    this.recordLag(batch.partition, batch.highWatermark, first);
    const records = batch.messages.map((raw) => this.decode(raw));
    const steps = this.stepsFor(payload);
    try {
      await this.whileHeartbeating(payload, () =>
        'handleBatch' in this.subscription ? deliverAsBatch(records, steps) : deliverOneByOne(records, steps),
      );
    } catch (error) {
      // Only a dead letter that could not be produced gets here; kafkajs fetches the records again.
      this.logger.error(`delivery from ${this.kafkaTopic}[${batch.partition}] failed, retrying: ${reasonOf(error)}`);
      throw error;
    }
  }

  private decode(raw: KafkaMessage): KafkaRecord {
    const passOver = passOverReason(raw, this.labels.group);
    if (passOver !== undefined) return { offset: raw.offset, raw, decoded: { passOver } };
    const decoded = fromRecord(this.labels.topic, raw);
    if ('problem' in decoded) return { offset: raw.offset, raw, decoded };
    try {
      assertValidPayload(this.subscription.topic, decoded.message);
      return { offset: raw.offset, raw, decoded };
    } catch (error) {
      return { offset: raw.offset, raw, decoded: { problem: reasonOf(error) } };
    }
  }

  private stepsFor(payload: EachBatchPayload): DeliverySteps<BusMessage, KafkaRecord> {
    const { partition, highWatermark } = payload.batch;
    const stillOwned = (): boolean => payload.isRunning() && !payload.isStale();
    return {
      attempt: (messages) => this.attempt(messages, stillOwned),
      deadLetter: (record, reason, attempts) => this.deadLetter(record, partition, reason, attempts),
      commitThrough: async (offset) => {
        payload.resolveOffset(offset);
        const next = offsetAfter(offset);
        try {
          await payload.commitOffsetsIfNecessary({ topics: [{ topic: this.kafkaTopic, partitions: [{ partition, offset: next }] }] });
        } catch (error) {
          // Usually a rebalance took the partition away: its new owner starts from the last commit and
          // handles the message again, which idempotent handlers tolerate.
          this.logger.warn(`could not commit ${this.kafkaTopic}[${partition}] up to ${offset}: ${reasonOf(error)}`);
          return false;
        }
        this.recordLag(partition, highWatermark, next);
        return true;
      },
      isRunning: () => !this.stopping.signal.aborted && stillOwned(),
    };
  }

  /**
   * Runs the handler under the retry policy. While a dependency is down (a transient failure) the
   * messages are retried for as long as it lasts and nothing after them is committed: the group's lag
   * grows, `guidepost_bus_consumer_waiting` says it is waiting, and the log says on what.
   */
  private async attempt(messages: readonly BusMessage[], stillOwned: () => boolean): Promise<AttemptOutcome> {
    const what = messages.length === 1 ? `message ${messages[0].id}` : `batch of ${messages.length} messages from ${messages[0].id}`;
    const { metrics, retry } = this.dependencies;
    try {
      const outcome = await attemptWithBackoff(() => this.runHandler(messages), retry, {
        stopping: this.stopping.signal,
        stillOwned,
        onFailure: (error, { attempt, failureClass, retryInMs }) => {
          metrics.handlerFailures.inc({ ...this.labels, class: failureClass });
          if (retryInMs === undefined) return;
          metrics.waiting.set(this.labels, failureClass === 'transient' ? 1 : 0);
          const which =
            failureClass === 'transient' ? `attempt ${attempt}, a dependency is unavailable` : `attempt ${attempt} of ${retry.attempts}`;
          this.logger.warn(
            `${this.kafkaGroup} failed on ${what} of ${this.kafkaTopic} (${which}), retrying in ${retryInMs} ms: ${reasonOf(error)}`,
          );
        },
      });
      if (outcome.kind === 'done') metrics.consumed.inc(this.labels, messages.length);
      return outcome;
    } finally {
      metrics.waiting.set(this.labels, 0);
    }
  }

  private async runHandler(messages: readonly BusMessage[]): Promise<void> {
    const done = this.dependencies.metrics.handleDuration.startTimer(this.labels);
    try {
      if ('handleBatch' in this.subscription) await this.subscription.handleBatch(messages);
      else await this.subscription.handle(messages[0]);
    } finally {
      done();
    }
  }

  /**
   * Gives a message up: the subscription is told first (a job worker ends its job as failed, so no job
   * waits for ever), then the message is recorded in the service's dead letters (where an operator
   * lists and replays it) and goes to its dead-letter topic with the reason.
   */
  private async deadLetter(record: KafkaRecord, partition: number, reason: string, attempts: number): Promise<void> {
    if ('message' in record.decoded && this.subscription.onGiveUp) {
      await this.subscription.onGiveUp(record.decoded.message, reason);
    }
    const failedAt = new Date();
    await this.recordDeadLetter(record, partition, { reason, attempts, failedAt });
    const deadLetterTopic = this.dependencies.names.deadLetterTopic(this.labels.topic);
    const where = { topic: this.kafkaTopic, partition, offset: record.offset, group: this.kafkaGroup };
    await this.dependencies.sendDeadLetter(deadLetterTopic, deadLetterRecord(record.raw, { ...where, reason, attempts, failedAt }));
    this.dependencies.metrics.deadLettered.inc(this.labels);
    const id = headerText(record.raw.headers, EnvelopeHeader.messageId) ?? 'without id';
    const after = attempts > 0 ? ` after ${attempts} attempts` : '';
    this.logger.error(
      `dead-lettered message ${id} of ${this.kafkaTopic}[${partition}]@${record.offset} for ${this.kafkaGroup} to ${deadLetterTopic}${after}: ${reason}`,
    );
  }

  /**
   * Records the dead letter in the service's store. While the store is unavailable (a transient
   * failure) it waits, as a handler does, and commits nothing; a store that refuses the record for
   * good only costs the operator's view of it (the dead-letter topic still has it), so delivery goes on.
   */
  private async recordDeadLetter(
    record: KafkaRecord,
    partition: number,
    failure: { reason: string; attempts: number; failedAt: Date },
  ): Promise<void> {
    const recorder = this.dependencies.recorder;
    if (!recorder) return;
    const deadLetter = consumerDeadLetterOf(record.raw, { ...this.labels, partition }, failure);
    const outcome = await attemptWithBackoff(() => recorder.record(deadLetter), this.dependencies.retry, {
      stopping: this.stopping.signal,
      onFailure: (error, { attempt, retryInMs }) => {
        if (retryInMs === undefined) return;
        this.logger.warn(
          `could not record the dead letter of ${this.kafkaTopic}[${partition}]@${record.offset} (attempt ${attempt}), retrying in ${retryInMs} ms: ${reasonOf(error)}`,
        );
      },
    });
    if (outcome.kind === 'abandoned')
      throw new Error(`stopped before the dead letter of ${this.kafkaTopic}[${partition}]@${record.offset} was recorded`);
    if (outcome.kind === 'failed') {
      this.logger.error(
        `could not record the dead letter of ${this.kafkaTopic}[${partition}]@${record.offset}; it is on the dead-letter topic only: ${outcome.reason}`,
      );
    }
  }

  /**
   * kafkajs heartbeats only between batches; an import worker's handler runs for minutes, so the
   * member keeps heartbeating while it works, or the group would evict it and hand the partition over.
   */
  private async whileHeartbeating(payload: EachBatchPayload, work: () => Promise<void>): Promise<void> {
    const timer = setInterval(() => {
      payload.heartbeat().catch((error: unknown) => this.logger.debug(`heartbeat of ${this.kafkaGroup} failed: ${reasonOf(error)}`));
    }, HEARTBEAT_INTERVAL_MS);
    try {
      await work();
    } finally {
      clearInterval(timer);
    }
  }

  private recordLag(partition: number, highWatermark: string, nextOffset: string): void {
    this.dependencies.metrics.lag.set({ ...this.labels, partition }, lagBefore(highWatermark, nextOffset));
  }
}
