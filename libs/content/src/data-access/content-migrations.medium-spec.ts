import { Client } from 'pg';
import { migrateServiceDatabase } from '@guidepost/platform-database';
import { openFreshDatabase, type FreshDatabase } from '@guidepost/platform-database/testing';
import { CONTENT_DATABASE } from './content-database';
import { ManageStudioDocumentAuthors1795848311100 } from './migrations/0005-manage-studio-document-authors';

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

const insertStudioDocument = (url: string, id: string, published: boolean, document: object) =>
  query(
    url,
    `INSERT INTO "content".studio_documents (account_id, kind, id, name, published, published_at, created_at, updated_at, document)
     VALUES ('acme', 'launchpads', $1, $1, $2, CASE WHEN $2 THEN now() END, now(), now(), $3)`,
    [id, published, JSON.stringify(document)],
  );

describe('the content migrations, on rows written before them', () => {
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

  it('give studio documents the authors their document named, else guidepost-admin, and take them and the url out of it', async () => {
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
