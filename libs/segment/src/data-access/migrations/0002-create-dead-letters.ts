import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@guidepost/platform-database';

/** The segment schema's dead letters, where an operator lists and replays what was given up on (see `createDeadLetterTable`). */
export class CreateSegmentDeadLetters1795537290473 implements MigrationInterface {
  readonly name = 'CreateSegmentDeadLetters1795537290473';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDeadLetterTable(queryRunner, 'segment');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(queryRunner, 'segment');
  }
}
