import { setTimeout as delay } from 'node:timers/promises';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { type BusMessage, IngestionFilteringRulesChanged, type PayloadOf } from '@guidepost/contracts-events';
import { InProcessBus } from '@guidepost/platform-bus';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { createDeadLetterTable } from './dead-letters/dead-letter-tables';
import { MessagingRetention } from './messaging-retention';
import { createMessagingRetentionIndexes, createMessagingTables } from './messaging-tables';
import { OutboxRelay } from './outbox-relay';
import { openServiceDatabase, type OpenServiceDatabase } from './testing';
import { UnitOfWork } from './unit-of-work';

const SCHEMA = 'retention';
const GROUP = 'retention-consumer';
/** Short, so that a long run passes many windows in seconds. */
const WINDOW_SECONDS = 0.5;
const PRUNE_INTERVAL_MS = 100;
const ROUNDS = 30;
const MESSAGES_PER_ROUND = 20;
/** A round lasts at least this long, so that at most (window + prune interval) / this rounds are in one window. */
const ROUND_MS = 100;
/**
 * The messages of the rounds that one window and one prune interval can hold, plus the round in hand,
 * the one before and one more for a prune that starts late on a busy machine.
 */
const BOUND = (Math.ceil((WINDOW_SECONDS * 1000 + PRUNE_INTERVAL_MS) / ROUND_MS) + 3) * MESSAGES_PER_ROUND;

/** The tables of a service schema, made as every service's migrations make them. */
class CreateRetentionTables1700000000000 implements MigrationInterface {
  readonly name = 'CreateRetentionTables1700000000000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, SCHEMA);
    await createDeadLetterTable(queryRunner, SCHEMA);
    await createMessagingRetentionIndexes(queryRunner, SCHEMA);
  }
  async down(): Promise<void> {}
}

function rulesOf(accountId: string): PayloadOf<typeof IngestionFilteringRulesChanged> {
  return { accountId, mode: 'deny', eventNames: [], userProperties: [], groupProperties: [], updatedAt: new Date().toISOString() };
}

/** A service's outbox relayed to a consumer group that handles each message once, pruned as in production, with a short window. */
describe('the messaging tables under a long run', () => {
  let database: OpenServiceDatabase;
  let bus: InProcessBus;
  let relay: OutboxRelay;
  let unitOfWork: UnitOfWork;
  let retention: MessagingRetention;
  let registry: MetricsRegistry;
  /** How often the consumer's work ran, per message id. */
  const handled = new Map<string, number>();
  /** Every message the consumer received, by id, to redeliver. */
  const received = new Map<string, BusMessage<PayloadOf<typeof IngestionFilteringRulesChanged>>>();

  const count = async (table: string, where = 'true'): Promise<number> => {
    const [row]: { count: string }[] = await database.dataSource.query(`SELECT count(*) FROM ${SCHEMA}.${table} WHERE ${where}`);
    return Number(row.count);
  };

  beforeAll(async () => {
    database = await openServiceDatabase({ schema: SCHEMA, entities: [], migrations: [CreateRetentionTables1700000000000] });
    bus = new InProcessBus();
    relay = new OutboxRelay(database.dataSource, bus, SCHEMA);
    unitOfWork = new UnitOfWork(database.dataSource, () => relay.nudge());
    bus.subscribe({
      topic: IngestionFilteringRulesChanged,
      group: GROUP,
      handle: async (message) => {
        received.set(message.id, message);
        await unitOfWork.runOnce(GROUP, message.id, () =>
          Promise.resolve(void handled.set(message.id, (handled.get(message.id) ?? 0) + 1)),
        );
      },
    });
    registry = new MetricsRegistry();
    retention = new MessagingRetention(
      database.dataSource,
      SCHEMA,
      { windowSeconds: WINDOW_SECONDS, intervalMs: PRUNE_INTERVAL_MS },
      registry,
    );
    relay.start();
    retention.onApplicationBootstrap();
  });

  afterAll(async () => {
    await retention?.onApplicationShutdown();
    await relay?.stop();
    await database?.release();
  });

  it('keep about one window of published messages and handled ids, and still handle a message redelivered within the window once', async () => {
    const sizes: { outbox: number; processed: number }[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = Date.now();
      await unitOfWork.run((tx) => {
        for (let index = 0; index < MESSAGES_PER_ROUND; index += 1)
          tx.emit(IngestionFilteringRulesChanged, `account-${index}`, rulesOf(`account-${index}`));
        return Promise.resolve();
      });
      const expected = (round + 1) * MESSAGES_PER_ROUND;
      while (handled.size < expected) await delay(5);
      // The message handled last is redelivered right away, within the window, while prunes go on.
      const last = [...received.values()].at(-1)!;
      await bus.redeliver(last, GROUP);
      expect(handled.get(last.id)).toBe(1);
      sizes.push({ outbox: await count('outbox_messages'), processed: await count('processed_messages') });
      await delay(Math.max(0, ROUND_MS - (Date.now() - started)));
    }
    console.log(
      `${ROUNDS * MESSAGES_PER_ROUND} messages in ${ROUNDS} rounds, window ${WINDOW_SECONDS} s: outbox rows after each round ${sizes.map((size) => size.outbox).join(' ')}; processed ids ${sizes.map((size) => size.processed).join(' ')} (bound ${BOUND})`,
    );
    expect(handled.size).toBe(ROUNDS * MESSAGES_PER_ROUND);
    expect([...handled.values()].every((times) => times === 1)).toBe(true);
    for (const size of sizes) {
      expect(size.outbox).toBeLessThanOrEqual(BOUND);
      expect(size.processed).toBeLessThanOrEqual(BOUND);
    }
    expect(BOUND).toBeLessThan((ROUNDS * MESSAGES_PER_ROUND) / 2);
    const pruned = await registry.getSingleMetricAsString('guidepost_messaging_rows_pruned_total');
    expect(pruned).toMatch(/table="outbox_messages"} [1-9]/);
    expect(pruned).toMatch(/table="processed_messages"} [1-9]/);
  }, 60_000);

  it('handles again a message redelivered after the window, once its id was pruned: the window is what deduplication covers', async () => {
    const [first] = [...received.values()];
    await delay(WINDOW_SECONDS * 1000 + 50);
    await retention.pruneOnce();
    expect(await count('processed_messages', `message_id = '${first.id}'`)).toBe(0);
    const before = handled.get(first.id)!;
    await bus.redeliver(first, GROUP);
    expect(handled.get(first.id)).toBe(before + 1);
  });

  it('keeps what is still at work past the window: unpublished and dead outbox messages, dead letters waiting for a replay', async () => {
    const old = `now() - interval '1 hour'`;
    await database.dataSource.query(
      `INSERT INTO ${SCHEMA}.outbox_messages (id, topic, key, payload, occurred_at, next_attempt_at, dead_at)
       VALUES ('pending', 't', 'k', '{}', ${old}, now() + interval '1 hour', NULL), ('dead', 't', 'k', '{}', ${old}, ${old}, ${old})`,
    );
    await database.dataSource.query(
      `INSERT INTO ${SCHEMA}.dead_letters (topic, consumer_group, message_id, reason, attempts, failed_at, replayed_at)
       VALUES ('t', 'g', 'waiting', 'r', 1, ${old}, NULL), ('t', 'g', 'replayed', 'r', 1, ${old}, ${old})`,
    );
    const pruned = await retention.pruneOnce();
    expect(pruned?.dead_letters).toBe(1);
    expect(await count('outbox_messages', `id IN ('pending', 'dead')`)).toBe(2);
    const left: { message_id: string }[] = await database.dataSource.query(`SELECT message_id FROM ${SCHEMA}.dead_letters`);
    expect(left.map((row) => row.message_id)).toEqual(['waiting']);
  });
});
