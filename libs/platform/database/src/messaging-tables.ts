import type { QueryRunner } from 'typeorm';

/**
 * Creates the outbox and processed-message tables in a service's schema. Every service's first
 * migration calls this, so the tables are created by migrations in every shape.
 */
export async function createMessagingTables(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE "${schema}".outbox_messages (
      sequence bigserial PRIMARY KEY,
      id text NOT NULL UNIQUE,
      topic text NOT NULL,
      key text NOT NULL,
      payload jsonb NOT NULL,
      occurred_at timestamptz NOT NULL,
      published_at timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      last_error text,
      dead_at timestamptz
    )`);
  await queryRunner.query(`
    CREATE INDEX outbox_messages_pending ON "${schema}".outbox_messages (sequence)
    WHERE published_at IS NULL AND dead_at IS NULL`);
  await queryRunner.query(`
    CREATE TABLE "${schema}".processed_messages (
      consumer_group text NOT NULL,
      message_id text NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer_group, message_id)
    )`);
}

export async function dropMessagingTables(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE "${schema}".processed_messages`);
  await queryRunner.query(`DROP TABLE "${schema}".outbox_messages`);
}

/**
 * The indexes through which `MessagingRetention` finds what is older than the deduplication window:
 * published outbox messages, handled message ids, replayed dead letters. Partial where the rows kept
 * (unpublished messages, waiting dead letters) need no entry. Every service's migration of that name
 * calls this, after its dead letters' one.
 */
export async function createMessagingRetentionIndexes(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(
    `CREATE INDEX outbox_messages_published ON "${schema}".outbox_messages (published_at) WHERE published_at IS NOT NULL`,
  );
  await queryRunner.query(`CREATE INDEX processed_messages_age ON "${schema}".processed_messages (processed_at)`);
  await queryRunner.query(`CREATE INDEX dead_letters_replayed ON "${schema}".dead_letters (replayed_at) WHERE replayed_at IS NOT NULL`);
}

export async function dropMessagingRetentionIndexes(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP INDEX "${schema}".dead_letters_replayed`);
  await queryRunner.query(`DROP INDEX "${schema}".processed_messages_age`);
  await queryRunner.query(`DROP INDEX "${schema}".outbox_messages_published`);
}
