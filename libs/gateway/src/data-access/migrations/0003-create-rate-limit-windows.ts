import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What keeps every gateway replica to one budget and one list of keys: the requests granted to each
 * account per one-second window (`SharedRateLimiter`), and an index that finds keys revoked since a
 * moment (`RevokedKeyWatcher`).
 */
export class CreateRateLimitWindows1795540000000 implements MigrationInterface {
  readonly name = 'CreateRateLimitWindows1795540000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "gateway".rate_limit_windows (
        account_id text NOT NULL,
        window_start bigint NOT NULL,
        granted integer NOT NULL,
        PRIMARY KEY (account_id, window_start)
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_revoked_at ON "gateway".api_keys (revoked_at) WHERE revoked_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway".api_keys_revoked_at`);
    await queryRunner.query(`DROP TABLE "gateway".rate_limit_windows`);
  }
}
