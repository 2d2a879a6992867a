import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * This service's copy of each account's ingestion filtering rules, kept from the content service's
 * announcements (the whole record, though only the property lists apply here). An account without a
 * row filters nothing.
 */
export class CreateIngestionFilteringRules1795278090472 implements MigrationInterface {
  name = 'CreateIngestionFilteringRules1795278090472';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE profile.ingestion_filtering_rules (
        account_id text PRIMARY KEY,
        mode text NOT NULL CHECK (mode IN ('allow', 'deny')),
        event_names text[] NOT NULL,
        user_properties text[] NOT NULL,
        group_properties text[] NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE profile.ingestion_filtering_rules`);
  }
}
