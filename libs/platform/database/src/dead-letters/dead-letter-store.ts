import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { DeadLetter, DeadLetterBulkReplay, DeadLetterFilter, DeadLetterPage, DeadLetterSummary } from '@guidepost/contracts-http';
import type { MessageBus } from '@guidepost/platform-bus';
import { classifyFailure, reasonOf } from '@guidepost/platform-failures';
import { DomainError, notFound } from '@guidepost/platform-errors';
import { type DeadLetterListQuery, encodeCursor, isDeadLetterId } from './dead-letter-query';

/** The outbox relay's rows have this (empty) consumer group. */
export const RELAY_GROUP = '';

interface SummaryRow {
  id: string;
  topic: string;
  consumer_group: string;
  message_id: string | null;
  message_key: string | null;
  reason: string;
  attempts: number;
  failed_at: Date;
  /** `failed_at` to the microsecond, for cursors. */
  failed_at_exact: string;
  replayed_at: Date | null;
  source_partition: number | null;
  source_offset: string | null;
}

interface FullRow extends SummaryRow {
  payload: unknown;
  raw_value: string | null;
  headers: Record<string, string>;
  occurred_at: Date | null;
}

/** Waiting dead letters per topic and group, for the gauge. */
export interface WaitingCount {
  readonly topic: string;
  readonly group: string;
  readonly count: number;
}

const SUMMARY_COLUMNS = `id, topic, consumer_group, message_id, message_key, reason, attempts, failed_at, replayed_at,
  source_partition, source_offset, to_char(failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS failed_at_exact`;
const FULL_COLUMNS = `${SUMMARY_COLUMNS}, payload, raw_value, headers, occurred_at`;
/** Dead letters replayed per statement of a bulk replay. */
const BULK_PAGE = 200;

/**
 * One service's dead letters (its `dead_letters` table): listed newest first, shown whole, replayed.
 * Replaying a relay's dead letter makes the outbox relay publish the message again; replaying a
 * consumer group's delivers it again to that group only (`MessageBus.redeliver`). Either way the row
 * is marked replayed (and kept for the deduplication window: `MessagingRetention`), and replaying it
 * again does nothing.
 */
export class DeadLetterStore {
  private readonly logger: Logger;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: MessageBus,
    readonly schema: string,
    /** Wakes the schema's outbox relay. */
    private readonly nudgeRelay: () => void,
  ) {
    this.logger = new Logger(`DeadLetters(${schema})`);
  }

  async list(query: DeadLetterListQuery): Promise<DeadLetterPage> {
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    const parameter = (value: unknown): string => `$${parameters.push(value)}`;
    if (query.topic !== undefined) conditions.push(`topic = ${parameter(query.topic)}`);
    if (query.group !== undefined) conditions.push(`consumer_group = ${parameter(query.group)}`);
    if (query.status === 'waiting') conditions.push('replayed_at IS NULL');
    if (query.status === 'replayed') conditions.push('replayed_at IS NOT NULL');
    if (query.after)
      conditions.push(`(failed_at, id) < (${parameter(query.after.failedAt)}::timestamptz, ${parameter(query.after.id)}::bigint)`);
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows: SummaryRow[] = await this.dataSource.query(
      `SELECT ${SUMMARY_COLUMNS} FROM ${this.table()} ${where} ORDER BY failed_at DESC, id DESC LIMIT ${parameter(query.limit + 1)}`,
      parameters,
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const more = rows.length > query.limit && last !== undefined;
    return {
      dead_letters: page.map((row) => this.summaryOf(row)),
      next_cursor: more ? encodeCursor({ failedAt: last.failed_at_exact, id: String(last.id) }) : null,
    };
  }

  async get(id: string): Promise<DeadLetter> {
    const row = await this.find(id);
    return {
      ...this.summaryOf(row),
      payload: row.payload ?? null,
      raw_value: row.raw_value,
      headers: row.headers,
      occurred_at: row.occurred_at?.toISOString() ?? null,
      replayable: notReplayable(row) === undefined,
    };
  }

  /** Replays one dead letter; one already replayed (and not given up on since) is left as it is. */
  async replay(id: string): Promise<DeadLetterSummary> {
    const row = await this.find(id);
    if (row.replayed_at === null) await this.replayRow(row);
    return this.summaryOf(await this.find(id));
  }

  /** Replays every waiting dead letter matching the filter, oldest first; one that fails does not stop the others. */
  async replayAll(filter: DeadLetterFilter): Promise<DeadLetterBulkReplay> {
    const result = { replayed: 0, failed: [] as { id: string; reason: string }[] };
    let after = '0';
    for (;;) {
      const conditions = ['replayed_at IS NULL', 'id > $1'];
      const parameters: unknown[] = [after];
      if (filter.topic !== undefined) conditions.push(`topic = $${parameters.push(filter.topic)}`);
      if (filter.group !== undefined) conditions.push(`consumer_group = $${parameters.push(filter.group)}`);
      const rows: FullRow[] = await this.dataSource.query(
        `SELECT ${FULL_COLUMNS} FROM ${this.table()} WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT ${BULK_PAGE}`,
        parameters,
      );
      for (const row of rows) {
        try {
          await this.replayRow(row);
          result.replayed += 1;
        } catch (error) {
          result.failed.push({ id: String(row.id), reason: error instanceof DomainError ? error.detail : reasonOf(error) });
        }
      }
      if (rows.length < BULK_PAGE) return result;
      after = String(rows[rows.length - 1].id);
    }
  }

  /** Waiting (not replayed) dead letters per topic and group; the relay's group is ''. */
  async waitingCounts(): Promise<WaitingCount[]> {
    const rows: { topic: string; consumer_group: string; waiting: string }[] = await this.dataSource.query(
      `SELECT topic, consumer_group, count(*) AS waiting FROM ${this.table()} WHERE replayed_at IS NULL GROUP BY topic, consumer_group`,
    );
    return rows.map((row) => ({ topic: row.topic, group: row.consumer_group, count: Number(row.waiting) }));
  }

  private async replayRow(row: FullRow): Promise<void> {
    if (row.consumer_group === RELAY_GROUP) await this.replayThroughRelay(row);
    else await this.redeliverToGroup(row);
    this.logger.log(
      `replayed dead letter ${row.id}: message ${row.message_id ?? '(no id)'} of ${row.topic}${row.consumer_group ? ` for ${row.consumer_group}` : ''}`,
    );
  }

  /**
   * The relay publishes the message again: its outbox row is due again with its attempts reset (put
   * back from the dead letter if it is gone), and the row is marked replayed, in one transaction.
   */
  private async replayThroughRelay(row: FullRow): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // An UPDATE answers [rows, count] through TypeORM's PostgreSQL driver.
      const [, revived] = await manager.query<[unknown, number]>(
        `UPDATE "${this.schema}".outbox_messages
            SET dead_at = NULL, attempts = 0, next_attempt_at = now()
          WHERE id = $1 AND published_at IS NULL`,
        [row.message_id],
      );
      if (revived === 0) {
        await manager.query(
          `INSERT INTO "${this.schema}".outbox_messages (id, topic, key, payload, occurred_at)
           SELECT message_id, topic, message_key, payload, occurred_at FROM ${this.table()} WHERE id = $1
           ON CONFLICT (id) DO NOTHING`,
          [row.id],
        );
      }
      await manager.query(`UPDATE ${this.table()} SET replayed_at = now() WHERE id = $1 AND replayed_at IS NULL`, [row.id]);
    });
    this.nudgeRelay();
  }

  /**
   * Delivers the message again to the group that gave it up, then marks the row replayed, unless the
   * group gave it up again meanwhile (the row then waits again, with the new reason).
   */
  private async redeliverToGroup(row: FullRow): Promise<void> {
    const why = notReplayable(row);
    if (why !== undefined) throw new DomainError('conflict', `dead letter ${row.id} cannot be replayed: ${why}`);
    const message = {
      id: row.message_id!,
      topic: row.topic,
      key: row.message_key!,
      payload: row.payload,
      occurredAt: row.occurred_at!.toISOString(),
    };
    try {
      await this.bus.redeliver(message, row.consumer_group);
    } catch (error) {
      if (classifyFailure(error) === 'transient') {
        throw new DomainError('unavailable', `dead letter ${row.id} could not be replayed now: ${reasonOf(error)}`, {
          cause: error,
          retryAfterSeconds: 5,
        });
      }
      throw new DomainError('conflict', `dead letter ${row.id} was given up on again: ${reasonOf(error)}`, { cause: error });
    }
    await this.dataSource.query(
      `UPDATE ${this.table()} SET replayed_at = now() WHERE id = $1 AND failed_at = $2::timestamptz AND replayed_at IS NULL`,
      [row.id, row.failed_at_exact],
    );
  }

  private async find(id: string): Promise<FullRow> {
    const rows: FullRow[] = isDeadLetterId(id)
      ? await this.dataSource.query(`SELECT ${FULL_COLUMNS} FROM ${this.table()} WHERE id = $1`, [id])
      : [];
    if (rows.length === 0) throw notFound('Dead letter', id);
    return rows[0];
  }

  private summaryOf(row: SummaryRow): DeadLetterSummary {
    return {
      id: String(row.id),
      service: this.schema,
      source: row.consumer_group === RELAY_GROUP ? 'relay' : 'consumer',
      topic: row.topic,
      group: row.consumer_group === RELAY_GROUP ? null : row.consumer_group,
      message_id: row.message_id,
      key: row.message_key,
      reason: row.reason,
      attempts: row.attempts,
      failed_at: row.failed_at.toISOString(),
      status: row.replayed_at === null ? 'waiting' : 'replayed',
      replayed_at: row.replayed_at?.toISOString() ?? null,
      partition: row.source_partition,
      offset: row.source_offset,
    };
  }

  private table(): string {
    return `"${this.schema}".dead_letters`;
  }
}

/** Why a consumer's dead letter is no message that can be delivered again, or undefined when it is one. */
function notReplayable(row: FullRow): string | undefined {
  if (row.consumer_group === RELAY_GROUP) return undefined;
  if (row.message_id === null) return 'the record had no message id';
  if (row.message_key === null) return 'the record had no key';
  if (row.raw_value !== null) return 'its value is kept as text only: it is not JSON, or JSON that PostgreSQL cannot store';
  if (row.payload === null) return 'the record had no value';
  if (row.occurred_at === null) return 'the record had no occurred-at time';
  return undefined;
}
