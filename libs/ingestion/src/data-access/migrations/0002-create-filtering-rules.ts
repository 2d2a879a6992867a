import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ingestion service's copy of every account's ingestion filtering rules, fed by
 * `IngestionFilteringRulesChanged` (the content service owns the rules). An account without a row
 * has no rules: nothing is dropped.
 */
export class CreateFilteringRules1795364490469 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ingestion.filtering_rules (
        account_id text PRIMARY KEY,
        mode text NOT NULL CHECK (mode IN ('allow', 'deny')),
        event_names text[] NOT NULL,
        user_properties text[] NOT NULL,
        group_properties text[] NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ingestion.filtering_rules`);
  }
}
