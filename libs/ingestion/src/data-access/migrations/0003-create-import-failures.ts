import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rows a bulk import could not import, one per line of the uploaded file, so that a client can
 * fix and send again only those (`GET /jobs/{job_id}/failures`). The import worker writes each batch's
 * failures in the transaction that publishes the batch, as an upsert: a worker restarted after a
 * crash writes the same rows again without duplicating them.
 */
export class CreateImportFailures1795450890469 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ingestion.import_failures (
        job_id text NOT NULL REFERENCES ingestion.jobs (id) ON DELETE CASCADE,
        line integer NOT NULL,
        field text,
        reason text NOT NULL,
        PRIMARY KEY (job_id, line)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ingestion.import_failures`);
  }
}
