import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Finds an account's jobs in progress without reading its history: the per-account limit of bulk jobs asks on every import and export. */
export class IndexJobsInProgress1795540000001 implements MigrationInterface {
  readonly name = 'IndexJobsInProgress1795540000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX jobs_in_progress ON ingestion.jobs (account_id, name) WHERE status = 'IN_PROGRESS'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ingestion.jobs_in_progress`);
  }
}
