import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@guidepost/platform-database';

/** The gateway schema's dead letters, where an operator lists and replays what was given up on (see `createDeadLetterTable`). */
export class CreateGatewayDeadLetters1795537290473 implements MigrationInterface {
  readonly name = 'CreateGatewayDeadLetters1795537290473';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDeadLetterTable(queryRunner, 'gateway');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(queryRunner, 'gateway');
  }
}
