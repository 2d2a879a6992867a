import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@guidepost/platform-database';

/** The content schema's dead letters, where an operator lists and replays what was given up on (see `createDeadLetterTable`). */
export class CreateContentDeadLetters1795537290473 implements MigrationInterface {
  readonly name = 'CreateContentDeadLetters1795537290473';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDeadLetterTable(queryRunner, 'content');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(queryRunner, 'content');
  }
}
