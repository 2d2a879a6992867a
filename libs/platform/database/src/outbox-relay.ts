import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { MessageBus, OutgoingMessage } from '@guidepost/platform-bus';
import { OutboxMessageEntity } from './messaging.entities';

const BATCH_SIZE = 100;
const POLL_INTERVAL_MS = 250;
/** After this many failed deliveries a message is dead-lettered: kept with its reason, no longer retried. */
const MAX_ATTEMPTS = 10;
const MAX_BACKOFF_MS = 60_000;

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
 * Publishes a service's outbox to the bus, in order, at least once. Rows are claimed with
 * `FOR UPDATE SKIP LOCKED`, so several replicas can relay one outbox without publishing a row twice
 * at the same time. A delivery that fails is retried with exponential back-off; one that can never
 * succeed (or keeps failing) is dead-lettered with its reason instead of blocking the rest forever.
 */
export class OutboxRelay {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private rerun = false;
  private stopped = true;

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
    await this.running;
  }

  /** Wakes the relay now (called after a transaction that emitted messages commits). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.schedule(0);
  }

  /** Publishes everything publishable now; resolves when the outbox has nothing due. */
  async drain(): Promise<void> {
    while (await this.relayBatch()) {
      /* keep going while full batches come back */
    }
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .catch((error: unknown) => this.logger.error(`relay failed: ${String(error)}`))
        .finally(() => {
          this.running = undefined;
          if (this.stopped) return;
          const again = this.rerun;
          this.rerun = false;
          this.schedule(again ? 0 : POLL_INTERVAL_MS);
        });
    }, delayMs);
  }

  /** Relays one batch; true when the batch was full and more may be waiting. */
  private relayBatch(): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const rows: PendingRow[] = await manager.query(
        `SELECT sequence, id, topic, key, payload, occurred_at, attempts
           FROM "${this.schema}".outbox_messages
          WHERE published_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()
          ORDER BY sequence
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [BATCH_SIZE],
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
    const reason = error instanceof Error ? error.message : String(error);
    const permanent = error instanceof Error && (error as { permanent?: boolean }).permanent === true;
    const dead = permanent || attempts >= MAX_ATTEMPTS;
    const backoffMs = Math.min(MAX_BACKOFF_MS, 200 * 2 ** attempts);
    await manager.query(
      `UPDATE "${this.schema}".outbox_messages
          SET attempts = $2, last_error = $3,
              next_attempt_at = now() + ($4 || ' milliseconds')::interval,
              dead_at = CASE WHEN $5 THEN now() ELSE NULL END
        WHERE sequence = $1`,
      [row.sequence, attempts, reason, String(backoffMs), dead],
    );
    const what = `message ${row.id} on ${row.topic} (attempt ${attempts})`;
    if (dead) this.logger.error(`dead-lettered ${what}: ${reason}`);
    else this.logger.warn(`delivery of ${what} failed, retrying in ${backoffMs} ms: ${reason}`);
  }
}

function toMessage(row: PendingRow): OutgoingMessage {
  return { id: row.id, topic: row.topic, key: row.key, payload: row.payload, occurredAt: row.occurred_at.toISOString() };
}
