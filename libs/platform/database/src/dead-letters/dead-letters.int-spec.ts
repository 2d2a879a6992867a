import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Global, Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Type } from '@sinclair/typebox';
import { Client } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { type BusMessage, defineTopic, type PayloadOf } from '@guidepost/contracts-events';
import { KafkaBusModule, MessageBus, type OutgoingMessage, type Subscription } from '@guidepost/platform-bus';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { PermanentFailure } from '@guidepost/platform-failures';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { createMessagingTables } from '../messaging-tables';
import { ServiceDatabaseModule, unitOfWorkToken } from '../service-database.module';
import type { UnitOfWork } from '../unit-of-work';
import { DeadLetterRecorderModule } from './postgres-dead-letter-recorder';
import { createDeadLetterTable } from './dead-letter-tables';
import type { DeadLetterStore } from './dead-letter-store';
import { deadLetterStoreToken } from './dead-letters.controller';

/**
 * Dead letters against the real servers: a Kafka consumer group gives a message up, the service's
 * store shows it, and a replay delivers it to that group only, once; the relay's dead letters replay
 * through the outbox. Each run has its own PostgreSQL schema and Kafka namespace.
 */
const RUN = randomUUID().slice(0, 8);
const DATABASE_URL = process.env['GUIDEPOST_DATABASE_URL'] ?? '';

const Shipped = defineTopic('guidepost.test.shipped.v1', 'order', Type.Object({ order: Type.String() }));
type ShippedMessage = BusMessage<PayloadOf<typeof Shipped>>;

@Global()
@Module({ providers: [MetricsRegistry], exports: [MetricsRegistry] })
class TestMetricsModule {}

function migrationsFor(schema: string) {
  class CreateTestTables1700000000000 implements MigrationInterface {
    readonly name = 'CreateTestTables1700000000000';
    async up(queryRunner: QueryRunner): Promise<void> {
      await createMessagingTables(queryRunner, schema);
      await createDeadLetterTable(queryRunner, schema);
    }
    async down(): Promise<void> {}
  }
  return [CreateTestTables1700000000000];
}

/** What the consumer groups of the test did, per group: every handler run, and the work done once per message. */
class Journal {
  readonly runs = new Map<string, string[]>();
  readonly work = new Map<string, string[]>();
  /** Groups whose handler fails for good, like a mail server refusing a recipient. */
  readonly refusing = new Set<string>();

  push(map: Map<string, string[]>, group: string, id: string): void {
    map.set(group, [...(map.get(group) ?? []), id]);
  }

  of(map: Map<string, string[]>, group: string): string[] {
    return map.get(group) ?? [];
  }
}

const JOURNAL = Symbol('Journal');

function consumersModule(schema: string, groups: readonly string[], journal: Journal) {
  @Injectable()
  class Consumers implements OnModuleInit {
    constructor(
      private readonly bus: MessageBus,
      @Inject(unitOfWorkToken(schema)) private readonly unitOfWork: UnitOfWork,
      @Inject(JOURNAL) private readonly journal: Journal,
    ) {}

    onModuleInit(): void {
      for (const group of groups) {
        const subscription: Subscription<typeof Shipped> = {
          topic: Shipped,
          group,
          handle: async (message: ShippedMessage) => {
            this.journal.push(this.journal.runs, group, message.id);
            if (this.journal.refusing.has(group)) throw new PermanentFailure(`${group} refuses order ${message.payload.order}`);
            await this.unitOfWork.runOnce(group, message.id, () =>
              Promise.resolve(void this.journal.push(this.journal.work, group, message.id)),
            );
          },
        };
        this.bus.subscribe(subscription);
      }
    }
  }
  // As a service module does: its own database module, its consumers.
  @Module({
    imports: [ServiceDatabaseModule.forService({ schema, entities: [], migrations: migrationsFor(schema) })],
    providers: [Consumers, { provide: JOURNAL, useValue: journal }],
  })
  class ConsumersModule {}
  return ConsumersModule;
}

async function eventually(assertion: () => unknown, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(100);
    }
  }
}

async function dropSchema(schema: string): Promise<void> {
  const client = new Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

async function gaugeLines(app: TestingModule): Promise<string[]> {
  const text = await app.get(MetricsRegistry).getSingleMetricAsString('guidepost_dead_letters_waiting');
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('dead letters of a Kafka consumer group', () => {
  const schema = `it_dead_letters_${RUN}`;
  const journal = new Journal();
  let app: TestingModule;

  beforeAll(async () => {
    const config = loadConfig({
      GUIDEPOST_DATABASE_URL: DATABASE_URL,
      GUIDEPOST_KAFKA_BROKERS: process.env['GUIDEPOST_KAFKA_BROKERS'],
      GUIDEPOST_KAFKA_NAMESPACE: `it-dl-${RUN}`,
      GUIDEPOST_KAFKA_TOPIC_PARTITIONS: '3',
    });
    app = await Test.createTestingModule({
      imports: [
        PlatformConfigModule.forRoot(config),
        TestMetricsModule,
        KafkaBusModule.forRoot({
          clientId: 'dead-letters-int-spec',
          topics: [Shipped],
          handlerRetry: { attempts: 2, firstDelayMs: 50, maxDelayMs: 100 },
        }),
        DeadLetterRecorderModule.forService(schema),
        consumersModule(schema, ['test.first', 'test.second', 'test.third'], journal),
      ],
    }).compile();
    await app.init();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await dropSchema(schema);
  });

  it('records what one group gives up, replays it to that group only, once, and a second replay changes nothing', async () => {
    const store = app.get<DeadLetterStore>(deadLetterStoreToken(schema));
    const unitOfWork = app.get<UnitOfWork>(unitOfWorkToken(schema));
    journal.refusing.add('test.second');
    const id = `order-7:shipped:${RUN}`;
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Shipped, 'order-7', { order: 'order-7' }, id)));

    await eventually(async () => {
      expect((await store.list({ limit: 10 })).dead_letters).toHaveLength(1);
      expect(journal.of(journal.work, 'test.first')).toEqual([id]);
      expect(journal.of(journal.work, 'test.third')).toEqual([id]);
    });
    const [listed] = (await store.list({ limit: 10 })).dead_letters;
    expect(listed).toMatchObject({
      service: schema,
      source: 'consumer',
      topic: Shipped.name,
      group: 'test.second',
      message_id: id,
      key: 'order-7',
      reason: 'test.second refuses order order-7',
      attempts: 1,
      status: 'waiting',
      replayed_at: null,
      partition: expect.any(Number) as number,
      offset: expect.stringMatching(/^\d+$/) as string,
    });
    expect(await store.get(listed.id)).toMatchObject({
      payload: { order: 'order-7' },
      raw_value: null,
      headers: { 'message-id': id, 'occurred-at': expect.any(String) as string },
      replayable: true,
    });
    expect(await store.list({ limit: 10, group: 'test.first' })).toEqual({ dead_letters: [], next_cursor: null });
    expect(await gaugeLines(app)).toEqual([
      `guidepost_dead_letters_waiting{service="${schema}",topic="${Shipped.name}",group="test.second"} 1`,
    ]);

    journal.refusing.delete('test.second');
    expect(await store.replay(listed.id)).toMatchObject({ id: listed.id, status: 'replayed', replayed_at: expect.any(String) as string });
    await eventually(() => expect(journal.of(journal.work, 'test.second')).toEqual([id]));
    // Replaying again, one by one or in bulk, delivers nothing more.
    expect((await store.replay(listed.id)).replayed_at).toBe((await store.get(listed.id)).replayed_at);
    expect(await store.replayAll({})).toEqual({ replayed: 0, failed: [] });

    // A message published after the replay reaches every group: the groups that did not give the
    // replayed message up have passed over it by then, without running their handlers on it.
    const after = `order-8:shipped:${RUN}`;
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Shipped, 'order-7', { order: 'order-8' }, after)));
    await eventually(() => {
      for (const group of ['test.first', 'test.second', 'test.third']) expect(journal.of(journal.work, group)).toContain(after);
    });
    expect(journal.of(journal.runs, 'test.first')).toEqual([id, after]);
    expect(journal.of(journal.runs, 'test.third')).toEqual([id, after]);
    expect(journal.of(journal.runs, 'test.second')).toEqual([id, id, after]);
    expect(journal.of(journal.work, 'test.second')).toEqual([id, after]);
    expect(await gaugeLines(app)).toEqual([
      `guidepost_dead_letters_waiting{service="${schema}",topic="${Shipped.name}",group="test.second"} 0`,
    ]);
  });

  it('waits again when the group gives the replayed message up again', async () => {
    const store = app.get<DeadLetterStore>(deadLetterStoreToken(schema));
    const unitOfWork = app.get<UnitOfWork>(unitOfWorkToken(schema));
    journal.refusing.add('test.third');
    const id = `order-9:shipped:${RUN}`;
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Shipped, 'order-9', { order: 'order-9' }, id)));
    const waiting = async () => (await store.list({ limit: 10, group: 'test.third', status: 'waiting' })).dead_letters;
    await eventually(async () => expect(await waiting()).toHaveLength(1));
    const [first] = await waiting();

    expect(await store.replayAll({ group: 'test.third' })).toEqual({ replayed: 1, failed: [] });
    await eventually(async () => {
      const again = await waiting();
      expect(again).toHaveLength(1);
      expect(again[0].failed_at > first.failed_at).toBe(true);
    });
    expect((await waiting())[0].id).toBe(first.id);
    expect(journal.of(journal.runs, 'test.third').filter((run) => run === id)).toHaveLength(2);
    expect(journal.of(journal.work, 'test.first')).toContain(id);
    expect(journal.of(journal.runs, 'test.first').filter((run) => run === id)).toHaveLength(1);
  });
});

/** A bus in front of the relay that refuses some topics for good, until told otherwise. */
class RefusingBus extends MessageBus {
  readonly refused = new Set<string>();
  readonly published: string[] = [];

  publish(messages: readonly OutgoingMessage[]): Promise<void> {
    const refused = messages.find((message) => this.refused.has(message.topic));
    if (refused) return Promise.reject(new PermanentFailure(`the broker refuses ${refused.topic}`));
    this.published.push(...messages.map((message) => message.id));
    return Promise.resolve();
  }

  subscribe(): void {}

  redeliver(): Promise<void> {
    return Promise.reject(new Error('not used'));
  }
}

describe('dead letters of an outbox relay', () => {
  const schema = `it_relay_dead_letters_${RUN}`;
  const bus = new RefusingBus();
  let app: TestingModule;

  @Global()
  @Module({ providers: [{ provide: MessageBus, useValue: bus }], exports: [MessageBus] })
  class RefusingBusModule {}

  beforeAll(async () => {
    app = await Test.createTestingModule({
      imports: [
        PlatformConfigModule.forRoot(loadConfig({ GUIDEPOST_DATABASE_URL: DATABASE_URL })),
        TestMetricsModule,
        RefusingBusModule,
        ServiceDatabaseModule.forService({ schema, entities: [], migrations: migrationsFor(schema) }),
      ],
    }).compile();
    await app.init();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await dropSchema(schema);
  });

  it('keeps what the relay gives up on, and publishes it again when replayed', async () => {
    const store = app.get<DeadLetterStore>(deadLetterStoreToken(schema));
    const unitOfWork = app.get<UnitOfWork>(unitOfWorkToken(schema));
    bus.refused.add(Shipped.name);
    const ids = [`a:${RUN}`, `b:${RUN}`];
    await unitOfWork.run((tx) => Promise.resolve(ids.forEach((id, n) => tx.emit(Shipped, `order-${n}`, { order: `order-${n}` }, id))));
    await eventually(async () => expect((await store.list({ limit: 10 })).dead_letters).toHaveLength(2));

    const page = await store.list({ limit: 1 });
    expect(page.dead_letters).toHaveLength(1);
    expect(page.next_cursor).not.toBeNull();
    const rest = await store.list({ limit: 1, after: decodeNext(page.next_cursor) });
    expect(rest.next_cursor).toBeNull();
    const listed = [...page.dead_letters, ...rest.dead_letters];
    expect(listed.map((deadLetter) => deadLetter.message_id).sort()).toEqual([...ids].sort());
    expect(listed[0]).toMatchObject({
      source: 'relay',
      group: null,
      reason: `the broker refuses ${Shipped.name}`,
      attempts: 1,
      status: 'waiting',
      partition: null,
    });
    expect(await store.get(listed[0].id)).toMatchObject({ payload: { order: expect.any(String) as string }, replayable: true });

    bus.refused.delete(Shipped.name);
    const byMessage = new Map(listed.map((deadLetter) => [deadLetter.message_id, deadLetter.id]));
    expect(await store.replay(byMessage.get(ids[0])!)).toMatchObject({ status: 'replayed' });
    await eventually(() => expect(bus.published).toEqual([ids[0]]));
    expect(await store.replayAll({ topic: Shipped.name })).toEqual({ replayed: 1, failed: [] });
    await eventually(() => expect(bus.published).toEqual(ids));
    expect(await store.replayAll({})).toEqual({ replayed: 0, failed: [] });
    await delay(500);
    expect(bus.published).toEqual(ids);
    expect((await store.list({ limit: 10, status: 'waiting' })).dead_letters).toEqual([]);
  });
});

function decodeNext(cursor: string | null): { failedAt: string; id: string } {
  const [failedAt, id] = Buffer.from(cursor ?? '', 'base64url')
    .toString('utf8')
    .split('/');
  return { failedAt, id };
}
