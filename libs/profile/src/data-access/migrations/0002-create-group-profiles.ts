import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Group profiles: free-form properties like user profiles, addressed by account and group id. */
export class CreateGroupProfiles1795278090471 implements MigrationInterface {
  name = 'CreateGroupProfiles1795278090471';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE profile.group_profiles (
        account_id text NOT NULL,
        group_id text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, group_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE profile.group_profiles`);
  }
}
