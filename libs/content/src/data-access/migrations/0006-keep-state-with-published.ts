import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lifecycle label (`state`) of every experience kind reads `PUBLISHED` exactly while the record is
 * published (`lifecycleStateOf`), and a constraint keeps it so. Until now publishing left the label as
 * written, so stored rows may disagree: a published row becomes `PUBLISHED`, an unpublished `PUBLISHED`
 * one `DRAFT`, and any other label of an unpublished row (`DRAFT`, `ARCHIVED`, ...) is kept. Studio
 * documents take the label out of their document into a column of its own (text only; else `DRAFT`).
 */
export class KeepStateWithPublished1795848968830 implements MigrationInterface {
  readonly name = 'KeepStateWithPublished1795848968830';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE "content".experiences
      SET state = CASE WHEN published THEN 'PUBLISHED' ELSE 'DRAFT' END
      WHERE published <> (state = 'PUBLISHED')`);
    await queryRunner.query(
      `ALTER TABLE "content".experiences ADD CONSTRAINT experiences_state_follows_published CHECK (published = (state = 'PUBLISHED'))`,
    );

    await queryRunner.query(`ALTER TABLE "content".studio_documents ADD COLUMN state text`);
    await queryRunner.query(`
      UPDATE "content".studio_documents SET
        state = CASE
          WHEN published THEN 'PUBLISHED'
          WHEN jsonb_typeof(document->'state') = 'string' AND document->>'state' NOT IN ('', 'PUBLISHED') THEN document->>'state'
          ELSE 'DRAFT'
        END,
        document = document - 'state'`);
    await queryRunner.query(`ALTER TABLE "content".studio_documents ALTER COLUMN state SET NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "content".studio_documents ADD CONSTRAINT studio_documents_state_follows_published CHECK (published = (state = 'PUBLISHED'))`,
    );
  }

  /** Puts the label back into the studio documents and drops the constraints; labels made consistent stay so. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "content".studio_documents SET document = document || jsonb_build_object('state', state)`);
    await queryRunner.query(`ALTER TABLE "content".studio_documents DROP COLUMN state`);
    await queryRunner.query(`ALTER TABLE "content".experiences DROP CONSTRAINT experiences_state_follows_published`);
  }
}
