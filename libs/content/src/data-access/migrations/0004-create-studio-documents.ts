import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The records of the studio-document kinds (launchpads, banners, checklists, flows v2, embeds, NPS):
 * one table for all of them, keyed by account, kind and id, with no list of kinds in a constraint,
 * so that adding a kind needs no migration. Ids and names use the "C" collation, as in the other
 * content tables, so that lists come out in code point order.
 */
export class CreateStudioDocuments1795620000000 implements MigrationInterface {
  readonly name = 'CreateStudioDocuments1795620000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "content".studio_documents (
        account_id text NOT NULL,
        kind text NOT NULL,
        id text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        published boolean NOT NULL,
        published_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        document jsonb NOT NULL,
        PRIMARY KEY (account_id, kind, id),
        CONSTRAINT studio_documents_published_has_time CHECK (NOT published OR published_at IS NOT NULL)
      )`);
    await queryRunner.query(`CREATE INDEX studio_documents_by_name ON "content".studio_documents (account_id, kind, name, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "content".studio_documents`);
  }
}
