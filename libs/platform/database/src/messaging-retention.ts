import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Counter } from 'prom-client';
import type { DataSource } from 'typeorm';
import { reasonOf } from '@guidepost/platform-failures';
import type { MetricsRegistry } from '@guidepost/platform-observability';
import { PeriodicTask } from '@guidepost/platform-scheduling';

/** Rows one statement deletes, so that a prune after a long pause never holds one long transaction. */
export const PRUNE_BATCH_ROWS = 5_000;

export interface MessagingRetentionSettings {
  /**
   * How long handled messages are remembered (seconds): the window within which a redelivered message
   * is recognised and handled once (`GUIDEPOST_MESSAGE_DEDUP_WINDOW_SECONDS`).
   */
  readonly windowSeconds: number;
  /** Time between two prunes (ms) (`GUIDEPOST_MESSAGE_PRUNE_INTERVAL_MS`). */
  readonly intervalMs: number;
}

/** Rows one prune deleted, by table. */
export interface PrunedRows {
  readonly outbox_messages: number;
  readonly processed_messages: number;
  readonly dead_letters: number;
}

type PrunedTable = keyof PrunedRows;

/**
 * What of each table is history once the window has passed, by an indexed time column (the indexes
 * are `createMessagingRetentionIndexes`'). Unpublished outbox rows (pending or dead) and waiting dead
 * letters are never history: they are pruned only once published or replayed.
 */
const HISTORY: Readonly<Record<PrunedTable, string>> = {
  outbox_messages: 'published_at',
  processed_messages: 'processed_at',
  dead_letters: 'replayed_at',
};

/**
 * Keeps a service schema's messaging tables bounded: every `intervalMs` it deletes what is older than
 * the deduplication window, in batches of `PRUNE_BATCH_ROWS` (each its own short statement, found
 * through an index): outbox messages published, ids of messages handled (`processed_messages`) and
 * dead letters replayed. Within the window a redelivered message (a consumer group rebalanced or reset,
 * a relay that published twice) is still skipped; one redelivered later would be handled again, so the
 * window must outlast every redelivery the bus can make (Kafka keeps a topic for 7 days by default).
 * A producer re-emitting a message id after the window (an import worker taken up again) publishes it
 * again, which its consumers then handle as new. Every replica prunes: deleting twice is harmless.
 * Counted in `guidepost_messaging_rows_pruned_total{service,table}`.
 */
export class MessagingRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger: Logger;
  private readonly task: PeriodicTask<PrunedRows | undefined>;
  private readonly pruned: Counter<'service' | 'table'> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
    private readonly settings: MessagingRetentionSettings,
    registry?: MetricsRegistry,
  ) {
    this.logger = new Logger(`MessagingRetention(${schema})`);
    this.pruned = registry?.counter({
      name: 'guidepost_messaging_rows_pruned_total',
      help: "Rows deleted from a service schema's messaging tables once older than the deduplication window, by service and table",
      labelNames: ['service', 'table'],
    });
    // Series from the start, at zero: a dashboard or alert then sees "nothing pruned yet", not "no data".
    for (const table of Object.keys(HISTORY) as PrunedTable[]) this.pruned?.inc({ service: schema, table }, 0);
    this.task = new PeriodicTask({
      intervalMs: settings.intervalMs,
      run: () => this.prune(),
      onFailure: (error) => {
        this.logger.warn(`pruning the messaging tables failed, retrying at the next prune: ${reasonOf(error)}`);
        return undefined;
      },
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One prune (or the one in hand); resolves with the rows deleted, or undefined when it failed (logged). */
  pruneOnce(): Promise<PrunedRows | undefined> {
    return this.task.runOnce();
  }

  private async prune(): Promise<PrunedRows> {
    const pruned: PrunedRows = {
      outbox_messages: await this.pruneTable('outbox_messages'),
      processed_messages: await this.pruneTable('processed_messages'),
      dead_letters: await this.pruneTable('dead_letters'),
    };
    const total = pruned.outbox_messages + pruned.processed_messages + pruned.dead_letters;
    if (total > 0) {
      this.logger.log(
        `pruned ${pruned.outbox_messages} published outbox messages, ${pruned.processed_messages} handled message ids and ${pruned.dead_letters} replayed dead letters older than ${this.settings.windowSeconds} s`,
      );
    }
    return pruned;
  }

  private async pruneTable(table: PrunedTable): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.deleteBatch(table);
      total += deleted;
      this.pruned?.inc({ service: this.schema, table }, deleted);
      if (deleted < PRUNE_BATCH_ROWS) return total;
    }
  }

  private async deleteBatch(table: PrunedTable): Promise<number> {
    const qualified = `"${this.schema}".${table}`;
    const column = HISTORY[table];
    // An UPDATE or DELETE answers [rows, count] through TypeORM's PostgreSQL driver.
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM ${qualified}
        WHERE ctid = ANY (ARRAY(
          SELECT ctid FROM ${qualified}
           WHERE ${column} < now() - make_interval(secs => $1)
           LIMIT $2))`,
      [this.settings.windowSeconds, PRUNE_BATCH_ROWS],
    );
    return deleted;
  }
}
