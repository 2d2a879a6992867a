import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingRetentionIndexes, dropMessagingRetentionIndexes } from '@guidepost/platform-database';

/** Lets the segment schema's messaging tables be pruned through an index once past the deduplication window (see `MessagingRetention`). */
export class IndexSegmentMessagingRetention1795610000000 implements MigrationInterface {
  readonly name = 'IndexSegmentMessagingRetention1795610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingRetentionIndexes(queryRunner, 'segment');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropMessagingRetentionIndexes(queryRunner, 'segment');
  }
}
