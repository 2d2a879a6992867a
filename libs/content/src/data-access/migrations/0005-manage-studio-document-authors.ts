import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who made and last changed a studio document become Guidepost's, as for every other content record:
 * `created_by` is kept across rewrites and both default to `guidepost-admin` when the writer does not
 * say. Existing rows take the author their document names (when it is text), else the default, and
 * their documents lose these fields and the derived `url`, which the answer now sets itself.
 */
export class ManageStudioDocumentAuthors1795848311100 implements MigrationInterface {
  readonly name = 'ManageStudioDocumentAuthors1795848311100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "content".studio_documents ADD COLUMN created_by text, ADD COLUMN updated_by text`);
    await queryRunner.query(`
      UPDATE "content".studio_documents SET
        created_by = CASE WHEN jsonb_typeof(document->'created_by') = 'string' THEN document->>'created_by' ELSE 'guidepost-admin' END,
        updated_by = CASE WHEN jsonb_typeof(document->'updated_by') = 'string' THEN document->>'updated_by' ELSE 'guidepost-admin' END,
        document = document - 'created_by' - 'updated_by' - 'url'`);
    await queryRunner.query(
      `ALTER TABLE "content".studio_documents ALTER COLUMN created_by SET NOT NULL, ALTER COLUMN updated_by SET NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "content".studio_documents SET document = document || jsonb_build_object('created_by', created_by, 'updated_by', updated_by)`,
    );
    await queryRunner.query(`ALTER TABLE "content".studio_documents DROP COLUMN created_by, DROP COLUMN updated_by`);
  }
}
