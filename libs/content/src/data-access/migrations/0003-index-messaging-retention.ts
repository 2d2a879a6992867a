import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingRetentionIndexes, dropMessagingRetentionIndexes } from '@guidepost/platform-database';

/** Lets the content schema's messaging tables be pruned through an index once past the deduplication window (see `MessagingRetention`). */
export class IndexContentMessagingRetention1795610000000 implements MigrationInterface {
  readonly name = 'IndexContentMessagingRetention1795610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingRetentionIndexes(queryRunner, 'content');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropMessagingRetentionIndexes(queryRunner, 'content');
  }
}
