import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingTables, dropMessagingTables } from '@guidepost/platform-database';

/** The ingestion service's first migration: its messaging tables and the job registry. */
export class CreateJobRegistry1795278090469 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, 'ingestion');
    await queryRunner.query(`
      CREATE TABLE ingestion.jobs (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        name text NOT NULL,
        started_at timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('IN_PROGRESS', 'COMPLETED', 'FAILED'))
      )`);
    // Serves "the account's recent jobs, newest first".
    await queryRunner.query(`CREATE INDEX jobs_account_recent ON ingestion.jobs (account_id, started_at DESC, id DESC)`);
    await queryRunner.query(`
      CREATE TABLE ingestion.job_events (
        job_id text NOT NULL REFERENCES ingestion.jobs (id) ON DELETE CASCADE,
        sequence integer NOT NULL,
        message_id text NOT NULL UNIQUE,
        name text NOT NULL,
        timestamp timestamptz NOT NULL,
        attributes jsonb NOT NULL,
        PRIMARY KEY (job_id, sequence)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ingestion.job_events`);
    await queryRunner.query(`DROP TABLE ingestion.jobs`);
    await dropMessagingTables(queryRunner, 'ingestion');
  }
}
