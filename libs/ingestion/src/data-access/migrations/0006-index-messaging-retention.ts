import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingRetentionIndexes, dropMessagingRetentionIndexes } from '@guidepost/platform-database';

/** Lets the ingestion schema's messaging tables be pruned through an index once past the deduplication window (see `MessagingRetention`). */
export class IndexIngestionMessagingRetention1795610000000 implements MigrationInterface {
  readonly name = 'IndexIngestionMessagingRetention1795610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingRetentionIndexes(queryRunner, 'ingestion');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropMessagingRetentionIndexes(queryRunner, 'ingestion');
  }
}
