import { Client } from 'pg';
import { migrateServiceDatabase } from '@guidepost/platform-database';
import { openFreshDatabase, type FreshDatabase } from '@guidepost/platform-database/testing';
import { CONTENT_DATABASE } from './content-database';
import { ManageStudioDocumentAuthors1795848311100 } from './migrations/0005-manage-studio-document-authors';
import { KeepStateWithPublished1795848968830 } from './migrations/0006-keep-state-with-published';

/** The content schema's migrations that change stored rows: what rows written before them become. */

const MIGRATIONS = CONTENT_DATABASE.migrations as readonly unknown[];

/** The content schema as it was just before `migration`. */
function contentDatabaseBefore(migration: unknown) {
  return { ...CONTENT_DATABASE, migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(migration)) as typeof CONTENT_DATABASE.migrations };
}

async function query<R>(url: string, sql: string, parameters: unknown[] = []): Promise<R[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows as R[];
  } finally {
    await client.end();
  }
}

/** A launchpad row; `author` fills the author columns, which rows have from migration 0005 on. */
const insertStudioDocument = (url: string, id: string, published: boolean, document: object, author?: string) =>
  query(
    url,
    `INSERT INTO "content".studio_documents (account_id, kind, id, name, published, published_at, created_at, updated_at, document
       ${author === undefined ? '' : ', created_by, updated_by'})
     VALUES ('acme', 'launchpads', $1, $1, $2, CASE WHEN $2 THEN now() END, now(), now(), $3 ${author === undefined ? '' : ', $4, $4'})`,
    [id, published, JSON.stringify(document), ...(author === undefined ? [] : [author])],
  );

describe('0005: the authors of studio documents, on rows written before it', () => {
  let database: FreshDatabase;

  beforeAll(async () => {
    database = await openFreshDatabase();
    await migrateServiceDatabase(database.url, contentDatabaseBefore(ManageStudioDocumentAuthors1795848311100));
    await insertStudioDocument(database.url, 'authored', false, {
      name: 'authored',
      created_by: 'ana',
      updated_by: 'bo',
      url: 'https://studio.example.com/lp',
      steps: [],
    });
    await insertStudioDocument(database.url, 'anonymous', false, { name: 'anonymous', created_by: null, updated_by: 7 });
    await migrateServiceDatabase(database.url, CONTENT_DATABASE);
  });

  afterAll(() => database?.drop());

  it('gives studio documents the authors their document named, else guidepost-admin, and takes them and the url out of it', async () => {
    const rows = await query<{ id: string; created_by: string; updated_by: string; document: object }>(
      database.url,
      `SELECT id, created_by, updated_by, document FROM "content".studio_documents ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 'anonymous', created_by: 'guidepost-admin', updated_by: 'guidepost-admin', document: { name: 'anonymous' } },
      { id: 'authored', created_by: 'ana', updated_by: 'bo', document: { name: 'authored', steps: [] } },
    ]);
  });
});

describe('0006: the lifecycle label in step with published, on rows written before it', () => {
  let database: FreshDatabase;

  const insertExperience = (id: string, published: boolean, state: string) =>
    query(
      database.url,
      `INSERT INTO "content".experiences (account_id, kind, id, app_id, name, state, platform, type, preview_url,
         locked_for_localization, theme, traits, steps, published, published_at, frequency, tag_ids,
         created_at, updated_at, created_by, updated_by)
       VALUES ('acme', 'pin', $1, 'app', $1, $2, 'web', 'persistent', NULL, false, NULL, '[]', '[]', $3,
         CASE WHEN $3 THEN now() END, 'once', '{}', now(), now(), 'ana', 'ana')`,
      [id, state, published],
    );

  beforeAll(async () => {
    database = await openFreshDatabase();
    await migrateServiceDatabase(database.url, contentDatabaseBefore(KeepStateWithPublished1795848968830));
    await insertExperience('published-draft', true, 'DRAFT');
    await insertExperience('unpublished-published', false, 'PUBLISHED');
    await insertExperience('unpublished-archived', false, 'ARCHIVED');
    await insertStudioDocument(database.url, 'published-draft', true, { name: 'a', state: 'DRAFT' }, 'ana');
    await insertStudioDocument(database.url, 'unpublished-published', false, { name: 'b', state: 'PUBLISHED' }, 'ana');
    await insertStudioDocument(database.url, 'unpublished-archived', false, { name: 'c', state: 'ARCHIVED' }, 'ana');
    await insertStudioDocument(database.url, 'unlabelled', false, { name: 'd', state: 3 }, 'ana');
    await migrateServiceDatabase(database.url, CONTENT_DATABASE);
  });

  afterAll(() => database?.drop());

  const statesIn = (table: string) =>
    query<{ id: string; state: string }>(database.url, `SELECT id, state FROM "content".${table} ORDER BY id`);

  it('labels published pins and mobile experiences PUBLISHED and unpublished PUBLISHED ones DRAFT, keeping other labels', async () => {
    expect(await statesIn('experiences')).toEqual([
      { id: 'published-draft', state: 'PUBLISHED' },
      { id: 'unpublished-archived', state: 'ARCHIVED' },
      { id: 'unpublished-published', state: 'DRAFT' },
    ]);
  });

  it('moves the label of studio documents into its column by the same rule (DRAFT for one that is not text)', async () => {
    expect(await statesIn('studio_documents')).toEqual([
      { id: 'published-draft', state: 'PUBLISHED' },
      { id: 'unlabelled', state: 'DRAFT' },
      { id: 'unpublished-archived', state: 'ARCHIVED' },
      { id: 'unpublished-published', state: 'DRAFT' },
    ]);
    const documents = await query<{ document: object }>(database.url, `SELECT document FROM "content".studio_documents`);
    for (const { document } of documents) expect(document).not.toHaveProperty('state');
  });

  it('refuses from then on a row whose label contradicts published', async () => {
    await expect(insertExperience('contradiction', false, 'PUBLISHED')).rejects.toThrow(/experiences_state_follows_published/);
    await expect(
      query(database.url, `UPDATE "content".studio_documents SET published = false WHERE id = 'published-draft'`),
    ).rejects.toThrow(/studio_documents_state_follows_published/);
  });
});
