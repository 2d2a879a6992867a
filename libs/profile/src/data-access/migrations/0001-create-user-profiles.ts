import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingTables, dropMessagingTables } from '@guidepost/platform-database';

/** The profile service's first migration: its messaging tables and user profiles. */
export class CreateUserProfiles1795278090470 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, 'profile');
    await queryRunner.query(`
      CREATE TABLE profile.user_profiles (
        account_id text NOT NULL,
        user_id text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, user_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE profile.user_profiles`);
    await dropMessagingTables(queryRunner, 'profile');
  }
}
