import type { QueryRunner } from 'typeorm';

/**
 * Creates a service schema's `dead_letters`: every message given up on there, where an operator lists
 * and replays it (`/admin/v1/dead-letters/{service}`). Rows of the outbox relay have an empty
 * `consumer_group` (their message stays in `outbox_messages` with `dead_at`, which replaying clears);
 * rows of a consumer group (Kafka) carry the record as it arrived. One row per topic, group and message:
 * a message given up on again after a replay is waiting again. Replaying marks a row `replayed_at`;
 * `MessagingRetention` deletes it once that is older than the deduplication window. The relay's dead
 * outbox rows of before this table are copied in. Every service's migration of that name calls this.
 */
export async function createDeadLetterTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE "${schema}".dead_letters (
      id bigserial PRIMARY KEY,
      topic text NOT NULL,
      consumer_group text NOT NULL,
      message_id text,
      message_key text,
      payload jsonb,
      raw_value text,
      headers jsonb NOT NULL DEFAULT '{}',
      occurred_at timestamptz,
      reason text NOT NULL,
      attempts integer NOT NULL,
      source_partition integer,
      source_offset text,
      failed_at timestamptz NOT NULL,
      replayed_at timestamptz,
      CONSTRAINT dead_letters_once UNIQUE (topic, consumer_group, message_id)
    )`);
  await queryRunner.query(`CREATE INDEX dead_letters_newest ON "${schema}".dead_letters (failed_at DESC, id DESC)`);
  await queryRunner.query(
    `CREATE INDEX dead_letters_waiting ON "${schema}".dead_letters (topic, consumer_group) WHERE replayed_at IS NULL`,
  );
  await queryRunner.query(`
    INSERT INTO "${schema}".dead_letters (topic, consumer_group, message_id, message_key, payload, occurred_at, reason, attempts, failed_at)
    SELECT topic, '', id, key, payload, occurred_at, COALESCE(last_error, 'given up'), attempts, dead_at
      FROM "${schema}".outbox_messages
     WHERE dead_at IS NOT NULL
     ORDER BY sequence`);
}

export async function dropDeadLetterTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE "${schema}".dead_letters`);
}
