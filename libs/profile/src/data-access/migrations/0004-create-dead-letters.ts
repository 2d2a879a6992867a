import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@guidepost/platform-database';

/** The profile schema's dead letters, where an operator lists and replays what was given up on (see `createDeadLetterTable`). */
export class CreateProfileDeadLetters1795537290473 implements MigrationInterface {
  readonly name = 'CreateProfileDeadLetters1795537290473';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDeadLetterTable(queryRunner, 'profile');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(queryRunner, 'profile');
  }
}
