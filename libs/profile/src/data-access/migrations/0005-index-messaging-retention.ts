import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingRetentionIndexes, dropMessagingRetentionIndexes } from '@guidepost/platform-database';

/** Lets the profile schema's messaging tables be pruned through an index once past the deduplication window (see `MessagingRetention`). */
export class IndexProfileMessagingRetention1795610000000 implements MigrationInterface {
  readonly name = 'IndexProfileMessagingRetention1795610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingRetentionIndexes(queryRunner, 'profile');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropMessagingRetentionIndexes(queryRunner, 'profile');
  }
}
