/**
 * The bus of the distributed shape, on Kafka.
 *
 * Producing goes through @nestjs/microservices' `ClientKafka` (producer-only mode), which owns the
 * kafkajs client and its idempotent producer. Consuming uses kafkajs consumers made from that same
 * client rather than Nest's `ServerKafka`: ServerKafka hands handlers one message at a time with
 * automatic offset commits, so it cannot give the event sink its batches, commit only once a handler's
 * work is durable, or move a message that keeps failing to a dead-letter topic instead of blocking
 * its partition; all of which the port promises.
 */
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { ClientKafka } from '@nestjs/microservices';
import { type ISocketFactory, type Kafka, logLevel, type Message, Partitioners, type Producer, type RetryOptions } from 'kafkajs';
import type { Topic } from '@guidepost/contracts-events';
import { AppConfig, type KafkaBatchFetch } from '@guidepost/platform-config';
import { reasonOf } from '@guidepost/platform-failures';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { DeadLetterRecorder } from '../dead-letter-recorder.port';
import { MessageBus, type OutgoingMessage, type Subscription } from '../message-bus.port';
import { KafkaBusMetrics } from './kafka-bus-metrics';
import { kafkaLogCreator } from './kafka-log';
import { produceRequestsOf, redeliveryRecord } from './kafka-records';
import { createMissingTopics, KafkaNames, MAX_MESSAGE_BYTES, type TopicLayout } from './kafka-topics';
import { PermanentPublishError, publishFailure, TransientPublishError } from './publish-errors';
import { HANDLER_RETRY, type RetryPolicy } from '../delivery/retry';
import { SubscriptionConsumer } from './subscription-consumer';

export interface KafkaBusOptions {
  /** Names this process to the brokers (their logs, quotas): the service's name. */
  readonly clientId: string;
  /** The topics the bus may use; each is created at start-up with its dead-letter topic when missing. */
  readonly topics: readonly Topic[];
  /** In-process retries of a failing handler before its message is dead-lettered. */
  readonly handlerRetry?: RetryPolicy;
  /**
   * How connections to the brokers are opened; kafkajs' own TCP sockets when absent. The bus's
   * integration spec puts a connection in between that loses a broker's answer.
   */
  readonly socketFactory?: ISocketFactory;
  /**
   * Retries of a failed broker request; `KAFKA_RETRY` (about a minute) when absent. The integration
   * spec shortens them to see a produce request give up within a test.
   */
  readonly requestRetry?: RetryOptions;
}

export const KAFKA_BUS_OPTIONS = Symbol('KafkaBusOptions');

/**
 * Keys and values per produce request. Half a record's limit: a request carries one batch per
 * partition, and two large messages (import batches) for one partition must still fit in it.
 */
const MAX_REQUEST_BYTES = MAX_MESSAGE_BYTES / 2;

/**
 * Retries of a failed request, about a minute in all (for the producer, the admin and the consumers).
 * Bounded, unlike the idempotent producer's default of retrying forever: a publish that hangs holds
 * the outbox relay's transaction open, while one that fails is simply retried by the relay later
 * (kafkajs notes that limited retries weaken its exactly-once promise; the bus only promises at least
 * once, and consumers are idempotent).
 */
const KAFKA_RETRY: RetryOptions = { initialRetryTime: 300, maxRetryTime: 30_000, retries: 8 };

@Injectable()
export class KafkaBus extends MessageBus implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(KafkaBus.name);
  private readonly client: ClientKafka;
  private readonly metrics: KafkaBusMetrics;
  private readonly layout: TopicLayout;
  private readonly names: KafkaNames;
  private readonly topicNames: Set<string>;
  private readonly batchFetch: KafkaBatchFetch;
  private readonly consumers: SubscriptionConsumer[] = [];
  private producer: Producer | undefined;
  /** A new producer session being started (see `produce`). */
  private renewing: Promise<void> | undefined;
  /** Settles once the produce requests in hand have settled: each waits for the one before it (see `produce`). */
  private lastProduce: Promise<void> = Promise.resolve();
  private stopped = false;
  private started = false;

  constructor(
    config: AppConfig,
    registry: MetricsRegistry,
    @Inject(KAFKA_BUS_OPTIONS) private readonly options: KafkaBusOptions,
    /** Where consumers keep what they give up on (the service's schema); the distributed host binds it. */
    @Optional() private readonly recorder?: DeadLetterRecorder,
  ) {
    super();
    const brokers = config.kafkaBrokers;
    if (!brokers || brokers.length === 0) throw new Error('the Kafka bus needs GUIDEPOST_KAFKA_BROKERS (comma-separated host:port)');
    this.layout = { partitions: config.kafkaTopicPartitions, replicationFactor: config.kafkaReplicationFactor };
    this.names = new KafkaNames(config.kafkaNamespace);
    this.topicNames = new Set(options.topics.map((topic) => topic.name));
    this.batchFetch = config.kafkaBatchFetch;
    this.metrics = new KafkaBusMetrics(registry);
    const retry = options.requestRetry ?? KAFKA_RETRY;
    this.client = new ClientKafka({
      // ClientKafka appends "-client" to the client id unless told otherwise; the service name is the id.
      postfixId: '',
      producerOnlyMode: true,
      client: {
        clientId: options.clientId,
        brokers: [...brokers],
        // Its warnings and errors, at debug level; its info lines (every connection) not at all.
        logLevel: logLevel.WARN,
        logCreator: kafkaLogCreator(),
        retry,
        socketFactory: options.socketFactory,
      },
      producer: {
        idempotent: true,
        allowAutoTopicCreation: false,
        retry,
        // The Java client's partitioner (murmur2 of the key), named so kafkajs does not warn about its default.
        createPartitioner: Partitioners.DefaultPartitioner,
      },
    });
  }

  /** Connects the producer and creates missing topics before any module publishes or subscribes. */
  async onModuleInit(): Promise<void> {
    this.producer = await this.client.connect();
    const admin = this.kafka().admin();
    await admin.connect();
    try {
      const created = await createMissingTopics(admin, this.names.topicsWithDeadLetters(this.topicNames), this.layout);
      if (created.length > 0) this.logger.log(`created topics ${created.join(', ')}`);
    } finally {
      await admin.disconnect();
    }
  }

  /** Subscriptions are registered in the modules' `onModuleInit`; every one is known by now. */
  async onApplicationBootstrap(): Promise<void> {
    this.started = true;
    const kafka = this.kafka();
    await Promise.all(this.consumers.map((consumer) => consumer.start(kafka)));
  }

  /**
   * Consumers stop first, each after the handler run in hand. This runs after the services' own
   * `beforeApplicationShutdown` (this module is global, and Nest shuts global modules down last), so
   * a long-running handler has already been told to wind down.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
  }

  /**
   * The producer goes last: the outbox relays stop in their modules' `onApplicationShutdown`, which Nest
   * calls before this global module's, and they may still publish while they stop.
   */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.renewing;
    this.producer = undefined;
    await this.client.close();
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<void> {
    const unknown = messages.find((message) => !this.topicNames.has(message.topic));
    if (unknown) throw new PermanentPublishError(`message ${unknown.id} is for ${unknown.topic}, which is not a topic of the contracts`);
    for (const request of produceRequestsOf(messages, MAX_REQUEST_BYTES)) {
      const topics = request.map((entry) => entry.topic);
      await this.produce(topics, (producer) =>
        producer.sendBatch({ topicMessages: request.map((entry) => ({ ...entry, topic: this.names.topic(entry.topic) })), acks: -1 }),
      );
      for (const { topic, messages: sent } of request) this.metrics.published.inc({ topic }, sent.length);
    }
  }

  /** Produces the message to its topic again, marked for `group`: the other groups' consumers pass over it. */
  async redeliver(message: OutgoingMessage, group: string): Promise<void> {
    if (!this.topicNames.has(message.topic))
      throw new PermanentPublishError(`message ${message.id} is for ${message.topic}, which is not a topic of the contracts`);
    await this.produce([message.topic], (producer) =>
      producer.send({ topic: this.names.topic(message.topic), messages: [redeliveryRecord(message, group)], acks: -1 }),
    );
    this.metrics.published.inc({ topic: message.topic });
  }

  /**
   * Runs one produce request, turning its failure into the bus's failure classes.
   *
   * Produce requests run one at a time, each with its retries. The idempotent producer numbers each
   * partition's records, and the broker answers a batch whose numbers it has already written with
   * success, writing nothing. kafkajs takes a failed request's numbers back before it retries it, but
   * the broker may have written that request (its answer was lost, or came after the request timed
   * out): a concurrent request would then be given the same numbers, be answered success, and be
   * dropped, though its caller acknowledges it. So a request starts only once the one before it has
   * succeeded or given up.
   *
   * For the same reason, after a request that gave up (other than one the broker refused for good) the
   * next one must not start in the same session: a new producer (a new producer id) is started first.
   * That also covers a broker that lost this producer's session (it restarted while a batch was in
   * flight, and now refuses every sequence number), from which the idempotent producer never recovers
   * on its own. A message the old session may have written is written again, which consumers tolerate.
   */
  private produce(topics: readonly string[], send: (producer: Producer) => Promise<unknown>): Promise<void> {
    const produced = this.lastProduce.then(() => this.produceNow(topics, send));
    this.lastProduce = produced.catch(() => undefined);
    return produced;
  }

  private async produceNow(topics: readonly string[], send: (producer: Producer) => Promise<unknown>): Promise<void> {
    const producer = await this.connectedProducer();
    try {
      await send(producer);
    } catch (error) {
      const failure = publishFailure(error, topics);
      if (!(failure instanceof PermanentPublishError) && !this.stopped) await this.renewProducer(failure.message);
      throw failure;
    }
  }

  /** The producer, connecting a new one when the last renewal could not (the broker was still away). */
  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    if (this.stopped) throw new TransientPublishError('the Kafka bus is stopping');
    await this.renewProducer('the Kafka producer is not connected');
    if (!this.producer) throw new TransientPublishError('the Kafka producer is not connected; the broker cannot be reached');
    return this.producer;
  }

  /** Closes the producer and connects a new one, once at a time; leaves none when the broker cannot be reached. */
  private renewProducer(reason: string): Promise<void> {
    this.renewing ??= (async () => {
      this.logger.warn(`starting a new Kafka producer session: ${reason}`);
      this.producer = undefined;
      await this.client.close().catch(() => undefined);
      try {
        this.producer = await this.client.connect();
      } catch (error) {
        await this.client.close().catch(() => undefined);
        this.logger.warn(`the new Kafka producer could not connect, trying again with the next publish: ${reasonOf(error)}`);
      }
    })().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  subscribe<T extends Topic>(subscription: Subscription<T>): void {
    const { topic, group } = subscription;
    if (this.started) throw new Error(`${group} subscribed to ${topic.name} after the bus started: subscribe in onModuleInit`);
    if (!this.topicNames.has(topic.name)) throw new Error(`${group} subscribes to ${topic.name}, which is not a topic of the contracts`);
    if (this.consumers.some((consumer) => consumer.consumes(topic.name, group))) {
      throw new Error(`group ${group} already subscribes to ${topic.name}`);
    }
    this.consumers.push(
      new SubscriptionConsumer(subscription as unknown as Subscription<Topic>, {
        metrics: this.metrics,
        names: this.names,
        retry: this.options.handlerRetry ?? HANDLER_RETRY,
        sendDeadLetter: (deadLetterTopic, record) => this.sendDeadLetter(deadLetterTopic, record),
        recorder: this.recorder,
        batchFetch: this.batchFetch,
      }),
    );
  }

  /** What keeps the bus from being ready: the producer, or consumers that have not joined their group. */
  notReadyReasons(): string[] {
    const reasons = this.producer ? [] : ['the Kafka producer is not connected'];
    for (const consumer of this.consumers) {
      const reason = consumer.notReadyReason();
      if (reason) reasons.push(reason);
    }
    return reasons;
  }

  private async sendDeadLetter(topic: string, record: Message): Promise<void> {
    await this.produce([topic], (producer) => producer.send({ topic, messages: [record], acks: -1 }));
  }

  /** The kafkajs client ClientKafka made; consumers and the admin share its connections' settings. */
  private kafka(): Kafka {
    return this.client.unwrap<Kafka>();
  }
}
