import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { BusMessage, PayloadOf, Topic } from '@guidepost/contracts-events';
import { OutboxMessageEntity, ProcessedMessageEntity } from './messaging.entities';

/** What a transaction may do besides writing its own tables: announce what it changed. */
export interface Transaction {
  readonly manager: EntityManager;
  /** Appends a message to the outbox; it is published after, and only if, the transaction commits. */
  emit<T extends Topic>(topic: T, key: string, payload: PayloadOf<T>, id?: string): void;
  /**
   * Writes the messages emitted so far to the outbox now (still uncommitted), so that a long
   * transaction emitting many large messages holds at most one batch of them in memory.
   */
  flush(): Promise<void>;
}

/** What became of some messages a service emitted: how many are in its outbox, waiting, or given up on. */
export interface OutboxDelivery {
  /** In the outbox at all: committed, published or not (published ones are pruned after the deduplication window). */
  readonly recorded: number;
  /** Committed and still to be published by the relay. */
  readonly pending: number;
  /** Given up on by the relay (dead-lettered). */
  readonly dead: number;
}

/**
 * One service's transactions. Each `run` commits its writes and its outbox messages together, then
 * wakes the relay so the messages leave at once instead of at the next poll.
 */
export class UnitOfWork {
  constructor(
    readonly dataSource: DataSource,
    private readonly onCommitted: () => void,
  ) {}

  async run<R>(work: (tx: Transaction) => Promise<R>): Promise<R> {
    const result = await this.dataSource.transaction(async (manager) => {
      let pending: BusMessage[] = [];
      let emitted = 0;
      const flush = async (): Promise<void> => {
        const batch = pending;
        pending = [];
        emitted += batch.length;
        await appendToOutbox(manager, batch);
      };
      const tx: Transaction = {
        manager,
        emit: (topic, key, payload, id = randomUUID()) =>
          pending.push({ id, topic: topic.name, key, payload, occurredAt: new Date().toISOString() }),
        flush,
      };
      const value = await work(tx);
      await flush();
      return { value, emitted };
    });
    if (result.emitted > 0) this.onCommitted();
    return result.value;
  }

  /**
   * How far the relay got with messages this service emitted, by their ids: what lets a producer pace
   * itself to the relay (an import stays a few batches ahead of it) without reading the outbox table.
   */
  async delivery(messageIds: readonly string[]): Promise<OutboxDelivery> {
    const row = await this.dataSource
      .createQueryBuilder(OutboxMessageEntity, 'message')
      .select('count(*)::integer', 'recorded')
      .addSelect('count(*) FILTER (WHERE message.published_at IS NULL AND message.dead_at IS NULL)::integer', 'pending')
      .addSelect('count(*) FILTER (WHERE message.dead_at IS NOT NULL)::integer', 'dead')
      .where('message.id = ANY(:ids)', { ids: messageIds })
      .getRawOne<OutboxDelivery>();
    return row ?? { recorded: 0, pending: 0, dead: 0 };
  }

  /**
   * Runs a consumer's work once per message and group: the processed-message mark and the work commit
   * together, so a redelivered message is skipped and a failed one is retried whole.
   */
  async runOnce<R>(group: string, messageId: string, work: (tx: Transaction) => Promise<R>): Promise<R | undefined> {
    return this.run(async (tx) => {
      const inserted = await tx.manager
        .createQueryBuilder()
        .insert()
        .into(ProcessedMessageEntity)
        .values({ consumerGroup: group, messageId })
        .orIgnore()
        .returning(['message_id'])
        .execute();
      if ((inserted.raw as unknown[]).length === 0) return undefined;
      return work(tx);
    });
  }
}

/**
 * A message whose id is already in the outbox is not appended again: a producer that re-emits a
 * deterministic id (an import worker restarted after a crash) announces nothing new.
 */
async function appendToOutbox(manager: EntityManager, messages: BusMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await manager
    .createQueryBuilder()
    .insert()
    .into(OutboxMessageEntity)
    .values(
      messages.map((m) => ({ id: m.id, topic: m.topic, key: m.key, payload: m.payload as object, occurredAt: new Date(m.occurredAt) })),
    )
    .orIgnore()
    .execute();
}
