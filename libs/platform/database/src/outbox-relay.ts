import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { MessageBus, OutgoingMessage } from '@guidepost/platform-bus';
import { classifyFailure, reasonOf } from '@guidepost/platform-failures';
import { OutboxMessageEntity } from './messaging.entities';

/**
 * Messages per relayed batch. Small on purpose: a batch is held in memory while it is delivered, and
 * one message may carry thousands of events (an import batch), so 16 such messages are already tens of
 * thousands of rows, the size that the event store wants per insert.
 */
const BATCH_SIZE = 16;
const POLL_INTERVAL_MS = 250;
/**
 * After this many unrecognised failures a message is dead-lettered: kept with its reason, no longer
 * retried. A permanent failure is dead-lettered at once; a transient one (Kafka, or in the standalone
 * shape a store a consumer needs, is unreachable) never counts: an outage of any length only delays
 * the message, and the relay looks again at least every `MAX_TRANSIENT_BACKOFF_MS`.
 */
const MAX_ATTEMPTS = 10;
const MAX_BACKOFF_MS = 60_000;
const MAX_TRANSIENT_BACKOFF_MS = 5_000;

interface PendingRow {
  sequence: string;
  id: string;
  topic: string;
  key: string;
  payload: unknown;
  occurred_at: Date;
  attempts: number;
}

/**
 * Publishes a service's outbox to the bus, in order per topic, at least once. Each topic has its own
 * lane, so a slow consumer (a large import, a long export) delays only the messages of its own topic.
 * Rows are claimed with `FOR UPDATE SKIP LOCKED`, so several replicas can relay one outbox without
 * publishing a row twice at the same time. A delivery that fails is retried with exponential
 * back-off; one that can never succeed (or keeps failing) is dead-lettered with its reason instead of
 * blocking the rest forever: the row keeps `dead_at` and `last_error`, and the schema's `dead_letters`
 * gets a row, where an operator replays it (which makes the row due again).
 */
export class OutboxRelay {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  /** Topics being relayed now, each by one lane; a nudge while a lane runs makes it look again. */
  private readonly lanes = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private stopped = true;
  /** Looks at the outbox that failed in a row (the database is down): they space the next looks out. */
  private failedPolls = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: MessageBus,
    private readonly schema: string,
  ) {
    this.logger = new Logger(`OutboxRelay(${schema})`);
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    await Promise.all(this.lanes.values());
  }

  /** Wakes the relay now (called after a transaction that emitted messages commits). */
  nudge(): void {
    if (this.stopped) return;
    for (const topic of this.lanes.keys()) this.rerun.add(topic);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), delayMs);
  }

  /** One look at the outbox at a time; a wake-up during a look makes it look again right after. */
  private poll(): void {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.startLanes()
      .then(
        () => this.pollSucceeded(),
        (error: unknown) => this.pollFailed(error),
      )
      .finally(() => {
        this.polling = undefined;
        const again = this.pollAgain;
        this.pollAgain = false;
        this.schedule(again ? 0 : this.pollDelayMs());
      });
  }

  /**
   * The outbox could not be read: while the database is down (a transient failure) that is said once,
   * and the relay looks again less and less often (up to `MAX_TRANSIENT_BACKOFF_MS`), instead of logging
   * an error four times a second for the length of the outage.
   */
  private pollFailed(error: unknown): void {
    this.failedPolls += 1;
    if (classifyFailure(error) !== 'transient') this.logger.error(`relay failed: ${reasonOf(error)}`);
    else if (this.failedPolls === 1) this.logger.warn(`the outbox cannot be read, retrying until the database answers: ${reasonOf(error)}`);
  }

  private pollSucceeded(): void {
    if (this.failedPolls > 0) this.logger.log(`the outbox can be read again after ${this.failedPolls} failed looks`);
    this.failedPolls = 0;
  }

  private pollDelayMs(): number {
    return this.failedPolls === 0
      ? POLL_INTERVAL_MS
      : Math.min(MAX_TRANSIENT_BACKOFF_MS, POLL_INTERVAL_MS * 2 ** Math.min(this.failedPolls, 10));
  }

  /** Starts a lane for every topic with messages due that has none running. */
  private async startLanes(): Promise<void> {
    const due: { topic: string }[] = await this.dataSource.query(
      `SELECT DISTINCT topic FROM "${this.schema}".outbox_messages
        WHERE published_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()`,
    );
    for (const { topic } of due) {
      if (this.lanes.has(topic) || this.stopped) continue;
      const lane = this.drainTopic(topic)
        .catch((error: unknown) => this.logger.error(`relay of ${topic} failed: ${String(error)}`))
        .finally(() => {
          this.lanes.delete(topic);
          if (this.rerun.delete(topic)) this.nudge();
        });
      this.lanes.set(topic, lane);
    }
  }

  /** Publishes everything of one topic that is due now. */
  private async drainTopic(topic: string): Promise<void> {
    while (!this.stopped && (await this.relayBatch(topic))) {
      /* keep going while full batches come back */
    }
  }

  /** Relays one batch; true when the batch was full and more may be waiting. */
  private relayBatch(topic: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const rows: PendingRow[] = await manager.query(
        `SELECT sequence, id, topic, key, payload, occurred_at, attempts
           FROM "${this.schema}".outbox_messages
          WHERE topic = $2 AND published_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()
          ORDER BY sequence
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [BATCH_SIZE, topic],
      );
      if (rows.length === 0) return false;
      const delivered = await this.publishInOrder(manager, rows);
      return delivered === rows.length && rows.length === BATCH_SIZE;
    });
  }

  /** Publishes the whole batch at once, or message by message after a failure; stops at the first failure. */
  private async publishInOrder(manager: EntityManager, rows: PendingRow[]): Promise<number> {
    try {
      await this.bus.publish(rows.map(toMessage));
      await this.markPublished(manager, rows);
      return rows.length;
    } catch {
      for (const [index, row] of rows.entries()) {
        try {
          await this.bus.publish([toMessage(row)]);
          await this.markPublished(manager, [row]);
        } catch (error) {
          await this.recordFailure(manager, row, error);
          return index;
        }
      }
      return rows.length;
    }
  }

  private async markPublished(manager: EntityManager, rows: PendingRow[]): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(OutboxMessageEntity)
      .set({ publishedAt: () => 'now()', lastError: null })
      .whereInIds(rows.map((row) => row.sequence))
      .execute();
  }

  private async recordFailure(manager: EntityManager, row: PendingRow, error: unknown): Promise<void> {
    const attempts = row.attempts + 1;
    const reason = reasonOf(error);
    const failureClass = classifyFailure(error);
    const dead = failureClass === 'permanent' || (failureClass === 'unrecognised' && attempts >= MAX_ATTEMPTS);
    const backoffMs = Math.min(failureClass === 'transient' ? MAX_TRANSIENT_BACKOFF_MS : MAX_BACKOFF_MS, 200 * 2 ** Math.min(attempts, 20));
    await manager.query(
      `UPDATE "${this.schema}".outbox_messages
          SET attempts = $2, last_error = $3,
              next_attempt_at = now() + ($4 || ' milliseconds')::interval,
              dead_at = CASE WHEN $5 THEN now() ELSE NULL END
        WHERE sequence = $1`,
      [row.sequence, attempts, reason, String(backoffMs), dead],
    );
    if (dead) await this.keepDeadLetter(manager, row, reason, attempts);
    const what = `message ${row.id} on ${row.topic} (attempt ${attempts}, ${failureClass})`;
    if (dead) this.logger.error(`dead-lettered ${what}: ${reason}`);
    else this.logger.warn(`delivery of ${what} failed, retrying in ${backoffMs} ms: ${reason}`);
  }

  /**
   * Records the message in the schema's dead letters, where an operator lists and replays it; a message
   * given up on again after a replay waits again there, with its new reason.
   */
  private async keepDeadLetter(manager: EntityManager, row: PendingRow, reason: string, attempts: number): Promise<void> {
    await manager.query(
      `INSERT INTO "${this.schema}".dead_letters (topic, consumer_group, message_id, message_key, payload, occurred_at, reason, attempts, failed_at)
       SELECT topic, '', id, key, payload, occurred_at, $2, $3, now() FROM "${this.schema}".outbox_messages WHERE sequence = $1
       ON CONFLICT (topic, consumer_group, message_id)
       DO UPDATE SET reason = EXCLUDED.reason, attempts = EXCLUDED.attempts, failed_at = EXCLUDED.failed_at, replayed_at = NULL`,
      [row.sequence, reason, attempts],
    );
  }
}

function toMessage(row: PendingRow): OutgoingMessage {
  return { id: row.id, topic: row.topic, key: row.key, payload: row.payload, occurredAt: row.occurred_at.toISOString() };
}
