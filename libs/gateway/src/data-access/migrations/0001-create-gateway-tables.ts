import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createMessagingTables, dropMessagingTables } from '@guidepost/platform-database';

export class CreateGatewayTables1732200000001 implements MigrationInterface {
  readonly name = 'CreateGatewayTables1732200000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createMessagingTables(queryRunner, 'gateway');
    await queryRunner.query(`
      CREATE TABLE "gateway".accounts (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE "gateway".api_keys (
        key text PRIMARY KEY,
        account_id text NOT NULL REFERENCES "gateway".accounts (id) ON DELETE CASCADE,
        secret_sha256 bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_account_id ON "gateway".api_keys (account_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway".api_keys`);
    await queryRunner.query(`DROP TABLE "gateway".accounts`);
    await dropMessagingTables(queryRunner, 'gateway');
  }
}
