import { setTimeout as delay } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { defineTopic } from '@guidepost/contracts-events';
import { InProcessBus } from '@guidepost/platform-bus';
import { PermanentFailure, TransientFailure } from '@guidepost/platform-failures';
import { createDeadLetterTable } from './dead-letters/dead-letter-tables';
import { createMessagingTables } from './messaging-tables';
import { OutboxRelay } from './outbox-relay';
import { openServiceDatabase, type OpenServiceDatabase } from './testing';
import { UnitOfWork } from './unit-of-work';

const SCHEMA = 'relay';
const Shipped = defineTopic('guidepost.test.shipped.v1', 'order', Type.Object({ order: Type.Integer() }));
const Billed = defineTopic('guidepost.test.billed.v1', 'order', Type.Object({ order: Type.Integer() }));

class CreateRelayTables1700000000000 implements MigrationInterface {
  readonly name = 'CreateRelayTables1700000000000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, SCHEMA);
    await createDeadLetterTable(queryRunner, SCHEMA);
  }
  async down(): Promise<void> {}
}

async function eventually(assertion: () => unknown, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(20);
    }
  }
}

/** The outbox relay against the embedded PostgreSQL, publishing to the bus of the standalone shape. */
describe('the outbox relay', () => {
  let database: OpenServiceDatabase;
  let relay: OutboxRelay;
  let unitOfWork: UnitOfWork;
  const bus = new InProcessBus();
  /** Orders received per topic, in arrival order. */
  const received = { shipped: [] as number[], billed: [] as number[] };
  /** What the consumer of `Billed` answers: nothing (handled), or a failure. */
  let billing: Error | undefined;

  /** The outbox row of a `Billed` message. */
  const billedRow = async (order: number) => {
    const rows: { published_at: Date | null; dead_at: Date | null; attempts: number; last_error: string | null }[] =
      await database.dataSource.query(
        `SELECT published_at, dead_at, attempts, last_error FROM ${SCHEMA}.outbox_messages WHERE topic = $1 AND payload ->> 'order' = $2`,
        [Billed.name, String(order)],
      );
    return rows[0];
  };

  beforeAll(async () => {
    database = await openServiceDatabase({ schema: SCHEMA, entities: [], migrations: [CreateRelayTables1700000000000] });
    relay = new OutboxRelay(database.dataSource, bus, SCHEMA);
    unitOfWork = new UnitOfWork(database.dataSource, () => relay.nudge());
    bus.subscribe({
      topic: Shipped,
      group: 'shipping',
      handle: (message) => Promise.resolve(void received.shipped.push(message.payload.order)),
    });
    bus.subscribe({
      topic: Billed,
      group: 'billing',
      handle: (message) => (billing ? Promise.reject(billing) : Promise.resolve(void received.billed.push(message.payload.order))),
    });
    relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    await database?.release();
  });

  it('publishes what committed transactions emitted, in order, and marks it published', async () => {
    const orders = Array.from({ length: 40 }, (_, order) => order);
    for (const batch of [orders.slice(0, 25), orders.slice(25)]) {
      await unitOfWork.run((tx) => Promise.resolve(batch.forEach((order) => tx.emit(Shipped, `order-${order}`, { order }))));
    }
    await eventually(() => expect(received.shipped).toEqual(orders));
    const unpublished = async (): Promise<number> => {
      const [row]: { count: number }[] = await database.dataSource.query(
        `SELECT count(*)::integer AS count FROM ${SCHEMA}.outbox_messages WHERE published_at IS NULL`,
      );
      return row.count;
    };
    await eventually(async () => expect(await unpublished()).toBe(0));
  });

  it('publishes nothing of a transaction that rolled back', async () => {
    await expect(
      unitOfWork.run(async (tx) => {
        tx.emit(Shipped, 'order-1000', { order: 1000 });
        await tx.flush();
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Shipped, 'order-1001', { order: 1001 })));
    await eventually(() => expect(received.shipped.at(-1)).toBe(1001));
    expect(received.shipped).not.toContain(1000);
  });

  it('holds a message back while its consumer cannot handle it for now, and publishes it once it can', async () => {
    billing = new TransientFailure('the store is restarting');
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Billed, 'order-1', { order: 1 })));
    await eventually(async () => expect((await billedRow(1))?.last_error).toContain('the store is restarting'));
    expect(await billedRow(1)).toMatchObject({ published_at: null, dead_at: null });
    billing = undefined;
    await eventually(() => expect(received.billed).toEqual([1]));
  });

  it('dead-letters a message its consumer gives up on, with the reason, and relays the rest of the topic', async () => {
    billing = new PermanentFailure('order 2 has no customer');
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Billed, 'order-2', { order: 2 })));
    await eventually(async () => expect((await billedRow(2)).dead_at).not.toBeNull());
    const deadLetters: { consumer_group: string; reason: string }[] = await database.dataSource.query(
      `SELECT consumer_group, reason FROM ${SCHEMA}.dead_letters WHERE topic = $1`,
      [Billed.name],
    );
    expect(deadLetters).toEqual([{ consumer_group: '', reason: expect.stringContaining('order 2 has no customer') as string }]);
    billing = undefined;
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Billed, 'order-3', { order: 3 })));
    await eventually(() => expect(received.billed).toEqual([1, 3]));
  });

  it('tells a producer what became of the messages it emitted: in the outbox, still to publish, given up on', async () => {
    billing = new PermanentFailure('order 4 has no customer');
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Billed, 'order-4', { order: 4 }, 'billed-4')));
    await eventually(async () => expect((await unitOfWork.delivery(['billed-4'])).dead).toBe(1));
    billing = new TransientFailure('the store is restarting');
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Billed, 'order-5', { order: 5 }, 'billed-5')));
    await unitOfWork.run((tx) => Promise.resolve(tx.emit(Shipped, 'order-2000', { order: 2000 }, 'shipped-2000')));
    const ids = ['billed-4', 'billed-5', 'shipped-2000', 'never-emitted'];
    await eventually(async () => expect(await unitOfWork.delivery(ids)).toEqual({ recorded: 3, pending: 1, dead: 1 }));
    billing = undefined;
    await eventually(async () => expect(await unitOfWork.delivery(ids)).toEqual({ recorded: 3, pending: 0, dead: 1 }));
  });
});
