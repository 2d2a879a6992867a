import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingTables, dropMessagingTables } from '@guidepost/platform-database';

/**
 * The content tables. Ids and names use the "C" collation so that lists, ordered by name then id,
 * come out in the same (code point) order whatever the database's locale. A record keeps its tags
 * only as `tag_ids`; the public `tags` map is derived when it is read.
 */
export class CreateContentTables1763740800000 implements MigrationInterface {
  readonly name = 'CreateContentTables1763740800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, 'content');
    await queryRunner.query(`
      CREATE TABLE "content".flows (
        account_id text NOT NULL,
        id text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        published boolean NOT NULL,
        published_at timestamptz,
        frequency text NOT NULL,
        tag_ids text[] NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        created_by text NOT NULL,
        updated_by text NOT NULL,
        PRIMARY KEY (account_id, id),
        CONSTRAINT flows_published_has_time CHECK (NOT published OR published_at IS NOT NULL)
      )`);
    await queryRunner.query(`CREATE INDEX flows_by_name ON "content".flows (account_id, name, id)`);

    // Pins and mobile experiences; a pin and a mobile experience may share an id (different paths).
    await queryRunner.query(`
      CREATE TABLE "content".experiences (
        account_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('pin', 'mobile')),
        id text COLLATE "C" NOT NULL,
        app_id text NOT NULL,
        name text COLLATE "C" NOT NULL,
        published boolean NOT NULL,
        published_at timestamptz,
        state text NOT NULL,
        frequency text NOT NULL,
        platform text NOT NULL,
        type text NOT NULL,
        preview_url text,
        locked_for_localization boolean NOT NULL,
        theme text,
        tag_ids text[] NOT NULL,
        traits jsonb NOT NULL,
        steps jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        created_by text NOT NULL,
        updated_by text NOT NULL,
        PRIMARY KEY (account_id, kind, id),
        CONSTRAINT experiences_published_has_time CHECK (NOT published OR published_at IS NOT NULL)
      )`);
    await queryRunner.query(`CREATE INDEX experiences_by_name ON "content".experiences (account_id, kind, name, id)`);

    await queryRunner.query(`
      CREATE TABLE "content".tags (
        account_id text NOT NULL,
        id text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        created_by text NOT NULL,
        updated_by text NOT NULL,
        PRIMARY KEY (account_id, id)
      )`);
    await queryRunner.query(`CREATE INDEX tags_by_name ON "content".tags (account_id, name, id)`);

    await queryRunner.query(`
      CREATE TABLE "content".ingestion_filtering_rules (
        account_id text PRIMARY KEY,
        mode text NOT NULL CHECK (mode IN ('allow', 'deny')),
        event_names text[] NOT NULL,
        user_properties text[] NOT NULL,
        group_properties text[] NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "content".ingestion_filtering_rules`);
    await queryRunner.query(`DROP TABLE "content".tags`);
    await queryRunner.query(`DROP TABLE "content".experiences`);
    await queryRunner.query(`DROP TABLE "content".flows`);
    await dropMessagingTables(queryRunner, 'content');
  }
}
