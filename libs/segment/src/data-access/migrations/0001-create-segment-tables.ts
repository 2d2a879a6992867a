import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingTables, dropMessagingTables } from '@guidepost/platform-database';

/**
 * Segments, their members, and the staging of membership changes. A membership change is staged
 * (its ids in chunks) in the same transaction that accepts it, so the 202 is only given once the ids
 * are durable, and bus messages stay small whatever the size of the upload.
 */
export class CreateSegmentTables1763740800001 implements MigrationInterface {
  name = 'CreateSegmentTables1763740800001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, 'segment');
    await queryRunner.query(`
      CREATE TABLE segment.segments (
        account_id text NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        created_by text NOT NULL,
        updated_by text NOT NULL,
        PRIMARY KEY (account_id, id)
      )`);
    await queryRunner.query(`CREATE INDEX segments_by_creation ON segment.segments (account_id, created_at, id)`);
    // Deleting a segment removes its membership with it (cascade), and no member can outlive its segment.
    await queryRunner.query(`
      CREATE TABLE segment.segment_members (
        account_id text NOT NULL,
        segment_id text NOT NULL,
        user_id text NOT NULL,
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (segment_id, user_id),
        FOREIGN KEY (account_id, segment_id) REFERENCES segment.segments (account_id, id) ON DELETE CASCADE
      )`);
    await queryRunner.query(`
      CREATE TABLE segment.membership_changes (
        id uuid PRIMARY KEY,
        job_id text NOT NULL UNIQUE,
        account_id text NOT NULL,
        segment_id text NOT NULL,
        operation text NOT NULL CHECK (operation IN ('add', 'remove')),
        chunk_count integer NOT NULL CHECK (chunk_count > 0),
        chunks_applied integer NOT NULL DEFAULT 0,
        ids_applied integer NOT NULL DEFAULT 0,
        submitted_at timestamptz NOT NULL,
        finished_at timestamptz
      )`);
    // Chunks are staged while the upload streams in, before the change row exists (its job is only
    // created once the whole input is valid): the reference is checked at commit.
    await queryRunner.query(`
      CREATE TABLE segment.membership_change_chunks (
        change_id uuid NOT NULL REFERENCES segment.membership_changes (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        chunk_index integer NOT NULL,
        user_ids text[] NOT NULL,
        PRIMARY KEY (change_id, chunk_index)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE segment.membership_change_chunks`);
    await queryRunner.query(`DROP TABLE segment.membership_changes`);
    await queryRunner.query(`DROP TABLE segment.segment_members`);
    await queryRunner.query(`DROP TABLE segment.segments`);
    await dropMessagingTables(queryRunner, 'segment');
  }
}
