import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@guidepost/platform-database';

/** The ingestion schema's dead letters, where an operator lists and replays what was given up on (see `createDeadLetterTable`). */
export class CreateIngestionDeadLetters1795537290473 implements MigrationInterface {
  readonly name = 'CreateIngestionDeadLetters1795537290473';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDeadLetterTable(queryRunner, 'ingestion');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(queryRunner, 'ingestion');
  }
}
