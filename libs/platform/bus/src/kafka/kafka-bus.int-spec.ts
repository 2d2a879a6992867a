import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Global, Injectable, Module, type OnApplicationShutdown, type Type as Class } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Type } from '@sinclair/typebox';
import { type ISocketFactory, Kafka, type KafkaMessage, logLevel } from 'kafkajs';
import { type BusMessage, deadLetterTopicOf, defineTopic, type PayloadOf, type Topic } from '@guidepost/contracts-events';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { MessageBus } from '../message-bus.port';
import { KafkaBusModule, type KafkaBusModuleOptions, KafkaBusReadiness } from './kafka-bus.module';
import type { RetryPolicy } from '../delivery/retry';

const MiB = 1024 * 1024;
const BROKERS = (process.env['GUIDEPOST_KAFKA_BROKERS'] ?? '').split(',');
/** This run's own topics and groups on a broker that other runs and the services may share. */
const NAMESPACE = `it-${randomUUID().slice(0, 8)}`;
const config = loadConfig({
  GUIDEPOST_KAFKA_BROKERS: process.env['GUIDEPOST_KAFKA_BROKERS'],
  GUIDEPOST_KAFKA_NAMESPACE: NAMESPACE,
  GUIDEPOST_KAFKA_TOPIC_PARTITIONS: '6',
});
/** Quick retries, so that a poison message reaches its dead-letter topic within the test. */
const RETRY: RetryPolicy = { attempts: 3, firstDelayMs: 50, maxDelayMs: 200 };

const Ordered = defineTopic('guidepost.test.ordered.v1', 'sequence', Type.Object({ n: Type.Integer({ minimum: 0 }) }));
const Sized = defineTopic('guidepost.test.sized.v1', 'blob', Type.Object({ blob: Type.String() }));
const Batched = defineTopic('guidepost.test.batched.v1', 'sequence', Type.Object({ n: Type.Integer({ minimum: 0 }) }));
const Poisoned = defineTopic('guidepost.test.poisoned.v1', 'sequence', Type.Object({ label: Type.String(), poison: Type.Boolean() }));
const Shared = defineTopic('guidepost.test.shared.v1', 'item', Type.Object({ n: Type.Integer({ minimum: 0 }) }));
const Finishing = defineTopic('guidepost.test.finishing.v1', 'sequence', Type.Object({ n: Type.Integer({ minimum: 0 }) }));
const Late = defineTopic('guidepost.test.late.v1', 'sequence', Type.Object({ n: Type.Integer({ minimum: 0 }) }));
const Unanswered = defineTopic('guidepost.test.unanswered.v1', 'sequence', Type.Object({ n: Type.Integer({ minimum: 0 }) }));
const GaveUp = defineTopic('guidepost.test.gave-up.v1', 'sequence', Type.Object({ n: Type.Integer({ minimum: 0 }) }));
const TEST_TOPICS: Topic[] = [Ordered, Sized, Batched, Poisoned, Shared, Finishing, Late, Unanswered, GaveUp];

@Global()
@Module({ providers: [MetricsRegistry], exports: [MetricsRegistry] })
class TestMetricsModule {}

interface TestBus {
  readonly bus: MessageBus;
  readonly readiness: KafkaBusReadiness;
  readonly metrics: MetricsRegistry;
  /** Connects, creates the topics and starts the consumers, as a host's start-up does. */
  start(): Promise<void>;
  /** Closes the application as a host's shutdown does. */
  stop(): Promise<void>;
}

const open = new Set<TestingModule>();

/**
 * A host with the Kafka bus (and the service modules given), its subscriptions registered before
 * start-up as services do in `onModuleInit`.
 */
async function createBus(
  subscribe: (bus: MessageBus) => void = () => undefined,
  services: Class[] = [],
  busOptions: Pick<KafkaBusModuleOptions, 'socketFactory' | 'requestRetry'> = {},
): Promise<TestBus> {
  const app = await Test.createTestingModule({
    imports: [
      PlatformConfigModule.forRoot(config),
      TestMetricsModule,
      KafkaBusModule.forRoot({ clientId: 'kafka-bus-int-spec', topics: TEST_TOPICS, handlerRetry: RETRY, ...busOptions }),
      ...services,
    ],
  }).compile();
  open.add(app);
  const bus = app.get(MessageBus);
  subscribe(bus);
  return {
    bus,
    readiness: app.get(KafkaBusReadiness),
    metrics: app.get(MetricsRegistry),
    start: async () => {
      await app.init();
    },
    stop: async () => {
      open.delete(app);
      await app.close();
    },
  };
}

async function startBus(
  subscribe?: (bus: MessageBus) => void,
  services?: Class[],
  busOptions?: Pick<KafkaBusModuleOptions, 'socketFactory' | 'requestRetry'>,
): Promise<TestBus> {
  const testBus = await createBus(subscribe, services, busOptions);
  await testBus.start();
  return testBus;
}

function messageOf<T extends Topic>(topic: T, key: string, payload: PayloadOf<T>): BusMessage<PayloadOf<T>> {
  return { id: randomUUID(), topic: topic.name, key, payload, occurredAt: new Date().toISOString() };
}

/** Retries an assertion until it passes or the time is up (then its last failure is the test's). */
async function eventually(assertion: () => unknown, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(50);
    }
  }
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

/** A raw kafkajs client of the test's own, to look at Kafka behind the bus. */
const inspector = new Kafka({ clientId: 'kafka-bus-int-spec-inspector', brokers: BROKERS, logLevel: logLevel.NOTHING });

/** Reads a topic from the beginning until it has at least `count` records. */
async function readTopic(topic: string, count: number): Promise<KafkaMessage[]> {
  // A short fetch wait, so that disconnecting does not wait out a long poll.
  const consumer = inspector.consumer({ groupId: `${NAMESPACE}.inspector-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const records: KafkaMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        records.push(message);
        return Promise.resolve();
      },
    });
    await eventually(() => expect(records.length).toBeGreaterThanOrEqual(count));
  } finally {
    await consumer.disconnect();
  }
  return records;
}

function textHeaders(record: KafkaMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(record.headers ?? {}).map(([name, value]) => [name, String(value)]));
}

async function metricText(metrics: MetricsRegistry, name: string): Promise<string> {
  return (await metrics.getSingleMetricAsString(name))
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n');
}

/** The API key of a Produce request. Kafka frames start with their size (int32); a request's header then
 * has its API key (int16), API version (int16) and correlation id (int32), a response's its correlation id. */
const PRODUCE_API_KEY = 0;

/**
 * Connections to the brokers that lose answers to produce requests: the request reaches the broker,
 * which writes it, but its answer never reaches the client. Either one answer is lost while the
 * connection stays open, as behind a network path that stalled (the request times out after kafkajs'
 * 30 s), or, while `cuttingProduceAnswers`, every produce answer is lost with its connection, as on a
 * path that keeps breaking (every retry of the request fails at once, until the producer gives up).
 */
class AnswerLosingConnections {
  lostAnswers = 0;
  cuttingProduceAnswers = false;
  private armed = false;

  loseNextProduceAnswer(): void {
    this.armed = true;
  }

  readonly socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = connect({ host, port }, onConnect);
    let lost: number | undefined;
    const produceRequests = new Set<number>();
    const write = socket.write.bind(socket) as (data: Buffer, ...rest: unknown[]) => boolean;
    socket.write = (data: Buffer, ...rest: unknown[]) => {
      if (data.readInt16BE(4) === PRODUCE_API_KEY) {
        produceRequests.add(data.readInt32BE(8));
        if (this.armed) {
          this.armed = false;
          lost = data.readInt32BE(8);
        }
      }
      return write(data, ...rest);
    };
    // Answers are passed on frame by frame, so that the lost one can be left out whatever the chunks.
    let received = Buffer.alloc(0);
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event !== 'data') return emit(event, ...args);
      received = Buffer.concat([received, args[0] as Buffer]);
      while (received.length >= 4 && received.length >= 4 + received.readInt32BE(0)) {
        const frame = received.subarray(0, 4 + received.readInt32BE(0));
        received = received.subarray(frame.length);
        const correlationId = frame.readInt32BE(4);
        if (this.cuttingProduceAnswers && produceRequests.has(correlationId)) {
          this.lostAnswers += 1;
          socket.destroy(new Error('test: the connection broke before the produce answer arrived'));
          return true;
        }
        if (correlationId === lost) {
          lost = undefined;
          this.lostAnswers += 1;
        } else {
          emit('data', frame);
        }
      }
      return true;
    }) as typeof socket.emit;
    return socket;
  };
}

/** What an outbox relay does: it stops in its (non-global) module's `onApplicationShutdown`, and may publish until then. */
const lateMessage = messageOf(Late, 'job-1', { n: 1 });

@Injectable()
class PublishesWhileStopping implements OnApplicationShutdown {
  constructor(private readonly bus: MessageBus) {}

  async onApplicationShutdown(): Promise<void> {
    await this.bus.publish([lateMessage]);
  }
}

@Module({ providers: [PublishesWhileStopping] })
class StoppingRelayModule {}

afterEach(async () => {
  await Promise.all([...open].map((app) => app.close()));
  open.clear();
});

afterAll(async () => {
  const admin = inspector.admin();
  await admin.connect();
  try {
    const ours = (await admin.listTopics()).filter((name) => name.startsWith(`${NAMESPACE}.`));
    if (ours.length > 0) await admin.deleteTopics({ topics: ours });
  } finally {
    await admin.disconnect();
  }
});

describe('Kafka bus', () => {
  it('delivers the messages of one key in the order they were published', async () => {
    const keys = ['account-1', 'account-2', 'account-3', 'account-4'];
    const seen = new Map<string, number[]>(keys.map((key) => [key, []]));
    const { bus, metrics } = await startBus((b) =>
      b.subscribe({
        topic: Ordered,
        group: 'test.ordered',
        handle: async (message) => {
          await delay(Math.random() * 3);
          seen.get(message.key)?.push(message.payload.n);
        },
      }),
    );

    for (const round of range(5)) {
      await bus.publish(keys.flatMap((key) => range(10).map((n) => messageOf(Ordered, key, { n: round * 10 + n }))));
    }

    await eventually(() => {
      for (const key of keys) expect(seen.get(key)).toEqual(range(50));
    });
    expect(await metricText(metrics, 'guidepost_bus_messages_published_total')).toBe(
      'guidepost_bus_messages_published_total{topic="guidepost.test.ordered.v1"} 200',
    );
    await eventually(async () =>
      expect(await metricText(metrics, 'guidepost_bus_messages_consumed_total')).toBe(
        'guidepost_bus_messages_consumed_total{topic="guidepost.test.ordered.v1",group="test.ordered"} 200',
      ),
    );
  });

  it('hands a batch subscriber batches, and commits a batch only once the handler resolved', async () => {
    const group = 'test.batched';
    const waiting = range(20).map((n) => messageOf(Batched, 'job-1', { n }));
    // Published before the group exists: its first member starts from the beginning and finds them all.
    const producer = await startBus();
    await producer.bus.publish(waiting);
    await producer.stop();

    const interrupted = messageOf(Batched, 'job-1', { n: 20 });
    let failInterrupted: (error: Error) => void = () => undefined;
    const interruption = new Promise<never>((_, reject) => (failInterrupted = reject));
    const batches: string[][] = [];
    const first = await startBus((b) =>
      b.subscribe({
        topic: Batched,
        group,
        handleBatch: async (messages) => {
          batches.push(messages.map((m) => m.id));
          if (messages.some((m) => m.id === interrupted.id)) await interruption;
        },
      }),
    );
    await eventually(() => expect(batches.flat()).toEqual(waiting.map((m) => m.id)));
    expect(batches.some((batch) => batch.length > 1)).toBe(true);

    // A handler still at work when the service stops (an import told to wind down) fails: nothing is committed.
    await first.bus.publish([interrupted]);
    await eventually(() => expect(batches.flat()).toContain(interrupted.id));
    const stopping = first.stop();
    await eventually(() => expect(first.readiness.check()).rejects.toThrow('has not joined'));
    failInterrupted(new Error('interrupted by the shutdown'));
    await stopping;

    const again: string[] = [];
    await startBus((b) =>
      b.subscribe({
        topic: Batched,
        group,
        handleBatch: (messages) => {
          again.push(...messages.map((m) => m.id));
          return Promise.resolve();
        },
      }),
    );
    // Only the unfinished message comes again: the batches that resolved were committed.
    await eventually(() => expect(again).toEqual([interrupted.id]));
  });

  it('finishes and commits the message in hand when the service stops, and starts no other', async () => {
    const group = 'test.finishing';
    const [inHand, next] = range(2).map((n) => messageOf(Finishing, 'segment-1', { n }));
    let finish: () => void = () => undefined;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const started: string[] = [];
    const first = await startBus((b) =>
      b.subscribe({
        topic: Finishing,
        group,
        handle: async (message) => {
          started.push(message.id);
          if (message.id === inHand.id) await finishing;
        },
      }),
    );
    await first.bus.publish([inHand, next]);
    await eventually(() => expect(started).toEqual([inHand.id]));

    const stopping = first.stop();
    await eventually(() => expect(first.readiness.check()).rejects.toThrow('has not joined'));
    finish();
    await stopping;
    expect(started).toEqual([inHand.id]);

    const again: string[] = [];
    await startBus((b) =>
      b.subscribe({
        topic: Finishing,
        group,
        handle: (message) => {
          again.push(message.id);
          return Promise.resolve();
        },
      }),
    );
    await eventually(() => expect(again).toEqual([next.id]));
  });

  it('keeps the producer until the outbox relays have stopped', async () => {
    const host = await startBus(undefined, [StoppingRelayModule]);
    await host.stop();
    const records = await readTopic(`${NAMESPACE}.${Late.name}`, 1);
    expect(records.map((record) => textHeaders(record)['message-id'])).toEqual([lateMessage.id]);
  });

  it('dead-letters a message that keeps failing or can never be handled, with the reason, and goes on', async () => {
    const handled: string[] = [];
    const { bus, metrics } = await startBus((b) =>
      b.subscribe({
        topic: Poisoned,
        group: 'test.poisoned',
        handle: (message) => {
          if (message.payload.poison) return Promise.reject(new Error(`cannot handle ${message.payload.label}`));
          handled.push(message.payload.label);
          return Promise.resolve();
        },
      }),
    );
    const key = 'segment-9';
    const poison = messageOf(Poisoned, key, { label: 'poison', poison: true });
    const invalid = { ...messageOf(Poisoned, key, { label: 'invalid', poison: false }), payload: { label: 42 } };
    await bus.publish([messageOf(Poisoned, key, { label: 'before', poison: false }), poison, invalid]);
    // A record that is not JSON at all, as a foreign producer could write it.
    const notJsonId = randomUUID();
    const raw = inspector.producer();
    await raw.connect();
    await raw.send({
      topic: `${NAMESPACE}.${Poisoned.name}`,
      messages: [{ key, value: '{"label":', headers: { 'message-id': notJsonId, 'occurred-at': new Date().toISOString() } }],
    });
    await raw.disconnect();
    await bus.publish([messageOf(Poisoned, key, { label: 'after', poison: false })]);

    await eventually(() => expect(handled).toEqual(['before', 'after']));
    const dead = await readTopic(`${NAMESPACE}.${deadLetterTopicOf(Poisoned.name)}`, 3);
    const where = {
      'original-topic': `${NAMESPACE}.${Poisoned.name}`,
      'original-partition': expect.stringMatching(/^\d+$/) as string,
      'original-offset': expect.stringMatching(/^\d+$/) as string,
      'consumer-group': `${NAMESPACE}.test.poisoned`,
      'failed-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
    };
    expect(dead.map(textHeaders)).toEqual([
      expect.objectContaining({ ...where, 'message-id': poison.id, reason: 'cannot handle poison', attempts: '3' }),
      expect.objectContaining({
        ...where,
        'message-id': invalid.id,
        reason: expect.stringContaining('does not match its schema') as string,
        attempts: '0',
      }),
      expect.objectContaining({
        ...where,
        'message-id': notJsonId,
        reason: expect.stringMatching(/^the value is not JSON/) as string,
        attempts: '0',
      }),
    ]);
    expect(dead.map((record) => record.key?.toString())).toEqual([key, key, key]);
    expect(dead[0].value?.toString()).toBe(JSON.stringify(poison.payload));
    expect(dead[2].value?.toString()).toBe('{"label":');
    expect(await metricText(metrics, 'guidepost_bus_dead_letters_total')).toBe(
      'guidepost_bus_dead_letters_total{topic="guidepost.test.poisoned.v1",group="test.poisoned"} 3',
    );
  });

  it('stores every message it acknowledged when a produce request was written but its answer was lost', async () => {
    const connections = new AnswerLosingConnections();
    const { bus } = await startBus(undefined, [], { socketFactory: connections.socketFactory });
    // A producer session that has written to the partition already, as a running service's has.
    await bus.publish([messageOf(Unanswered, 'one-partition', { n: 0 })]);

    // The first request is written but unanswered until it times out; the second, to the same
    // partition, is published meanwhile, as the next track request or an outbox lane would be. Were
    // it sent with the numbers the first request gives back when it times out, the broker would take
    // it for a retry of the first: answered success, and written nowhere.
    connections.loseNextProduceAnswer();
    await Promise.all([
      bus.publish([messageOf(Unanswered, 'one-partition', { n: 1 })]),
      bus.publish([messageOf(Unanswered, 'one-partition', { n: 2 })]),
    ]);

    expect(connections.lostAnswers).toBe(1);
    const records = await readTopic(`${NAMESPACE}.${Unanswered.name}`, 3);
    expect(records.map((record) => (JSON.parse(String(record.value)) as { n: number }).n).sort()).toEqual([0, 1, 2]);
  }, 120_000);

  it('starts a new producer session after a produce request gave up, so the next message is written', async () => {
    const connections = new AnswerLosingConnections();
    const requestRetry = { initialRetryTime: 50, maxRetryTime: 200, retries: 3 };
    const { bus } = await startBus(undefined, [], { socketFactory: connections.socketFactory, requestRetry });
    // Until the new topic's leaders are known, the broker refuses (writing nothing), and these retries are short.
    await eventually(() => bus.publish([messageOf(GaveUp, 'one-partition', { n: 0 })]));

    // The broker writes the request and each of its retries is taken for a copy of it, but no answer
    // arrives, so the producer gives up: the caller learns a transient failure and publishes it again
    // later (an outbox relay does). Were the next request sent in the same session, it would get the
    // numbers the given-up one gave back: taken for one more copy, answered success, written nowhere.
    connections.cuttingProduceAnswers = true;
    await expect(bus.publish([messageOf(GaveUp, 'one-partition', { n: 1 })])).rejects.toMatchObject({ name: 'TransientPublishError' });
    connections.cuttingProduceAnswers = false;
    await bus.publish([messageOf(GaveUp, 'one-partition', { n: 2 })]);

    expect(connections.lostAnswers).toBeGreaterThan(requestRetry.retries);
    const records = await readTopic(`${NAMESPACE}.${GaveUp.name}`, 3);
    expect(records.map((record) => (JSON.parse(String(record.value)) as { n: number }).n).sort()).toEqual([0, 1, 2]);
  }, 60_000);

  it('carries an import-sized message whole, and rejects one larger than the broker accepts as permanent', async () => {
    const received: number[] = [];
    const { bus } = await startBus((b) =>
      b.subscribe({
        topic: Sized,
        group: 'test.sized',
        handle: (message) => {
          received.push(message.payload.blob.length);
          return Promise.resolve();
        },
      }),
    );

    const tooLarge = bus.publish([messageOf(Sized, 'big', { blob: 'x'.repeat(17 * MiB) })]);
    await expect(tooLarge).rejects.toMatchObject({ permanent: true, message: expect.stringContaining('can never succeed') as string });

    await bus.publish([
      messageOf(Sized, 'import-batch', { blob: 'y'.repeat(8 * MiB) }),
      messageOf(Sized, 'import-batch', { blob: 'z'.repeat(6 * MiB) }),
    ]);
    await eventually(() => expect(received).toEqual([8 * MiB, 6 * MiB]));
  });

  it('reports the lag of a partition from its owner only, once a rebalance handed it over', async () => {
    const member = (b: MessageBus) => b.subscribe({ topic: Ordered, group: 'test.lag-owners', handle: () => Promise.resolve() });
    const lagPartitions = async (metrics: MetricsRegistry): Promise<string[]> =>
      [...(await metricText(metrics, 'guidepost_bus_consumer_lag')).matchAll(/group="test\.lag-owners",partition="(\d+)"/g)]
        .map((match) => match[1])
        .sort();
    const first = await startBus(member);
    await eventually(() => first.readiness.check());
    await first.bus.publish(range(24).map((n) => messageOf(Ordered, `lag-${n}`, { n })));
    await eventually(async () => expect(await lagPartitions(first.metrics)).toEqual(range(6).map(String)));

    const second = await startBus(member);
    await eventually(() => Promise.all([first.readiness.check(), second.readiness.check()]));
    await first.bus.publish(range(24).map((n) => messageOf(Ordered, `lag-again-${n}`, { n })));
    await eventually(async () => {
      const [ofFirst, ofSecond] = await Promise.all([lagPartitions(first.metrics), lagPartitions(second.metrics)]);
      expect(ofSecond.length).toBeGreaterThan(0);
      expect([...ofFirst, ...ofSecond].sort()).toEqual(range(6).map(String));
    });
  });

  it('shares the partitions of a topic between the members of one group', async () => {
    const received: [string[], string[]] = [[], []];
    const member = (index: 0 | 1) => (b: MessageBus) =>
      b.subscribe({
        topic: Shared,
        group: 'test.shared',
        handle: (message) => {
          received[index].push(message.id);
          return Promise.resolve();
        },
      });
    const first = await createBus(member(0));
    await expect(first.readiness.check()).rejects.toThrow('the Kafka producer is not connected');
    await first.start();
    const second = await startBus(member(1));
    await eventually(() => Promise.all([first.readiness.check(), second.readiness.check()]));

    const items = range(60).map((n) => messageOf(Shared, `item-${n}`, { n }));
    await first.bus.publish(items);

    await eventually(() => expect(new Set(received.flat()).size).toBe(items.length));
    expect(received[0].length).toBeGreaterThan(0);
    expect(received[1].length).toBeGreaterThan(0);
  });
});
