import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CONTENT_DATABASE } from '@guidepost/content';
import { GATEWAY_DATABASE } from '@guidepost/gateway';
import { INGESTION_DATABASE } from '@guidepost/ingestion';
import {
  migrateServiceDatabase,
  type RunningPostgres,
  type ServiceDatabaseOptions,
  startEmbeddedPostgres,
} from '@guidepost/platform-database';
import { PROFILE_DATABASE } from '@guidepost/profile';
import { SEGMENT_DATABASE } from '@guidepost/segment';

const SERVICES: readonly ServiceDatabaseOptions[] = [
  GATEWAY_DATABASE,
  CONTENT_DATABASE,
  SEGMENT_DATABASE,
  PROFILE_DATABASE,
  INGESTION_DATABASE,
];
/** The superuser's password in every data folder made before passwords were generated. */
const LEGACY_PASSWORD = 'guidepost';
const QUIET = { log: () => undefined, warn: () => undefined };

/**
 * The standalone shape's embedded PostgreSQL is no open door to the other users of the machine: its
 * roles have passwords generated at the first start (kept in a file of mode 0600), it listens on a
 * Unix socket in the data folder, and the application connects as a role that is not a superuser.
 * A data folder of an earlier version (superuser `guidepost`, password `guidepost`, owning everything)
 * is moved to that at its first start, its data intact.
 */
describe('the embedded PostgreSQL', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'guidepost-pg-'));
  });

  afterAll(() => rm(folder, { recursive: true, force: true }));

  describe('in a new data folder', () => {
    let dataDir: string;
    let postgres: RunningPostgres;

    beforeAll(async () => {
      dataDir = join(folder, 'new');
      postgres = await startEmbeddedPostgres(dataDir, QUIET);
    }, 120_000);

    afterAll(() => postgres?.stop(), 60_000);

    it('keeps passwords generated for this folder in a file only its owner may read', async () => {
      const file = join(dataDir, 'postgres.passwords.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const passwords = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
      expect(passwords).toEqual({
        superuser: expect.stringMatching(/^[0-9a-f]{64}$/),
        application: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(decodeURIComponent(new URL(postgres.url).password)).toBe(passwords['application']);
      await expect(connectAs(postgres.superuserUrl, { password: LEGACY_PASSWORD })).rejects.toMatchObject({ code: '28P01' });
    });

    it('listens on a Unix socket in the data folder, for its owner only, and on no TCP port', async () => {
      expect(new URL(postgres.url).searchParams.get('host')).toBe(dataDir);
      expect((await stat(join(dataDir, '.s.PGSQL.5432'))).mode & 0o077).toBe(0);
      expect(await queryAs(postgres.url, 'SHOW listen_addresses')).toEqual([{ listen_addresses: '' }]);
    });

    it('connects the application as the owner of its database, which is no superuser', async () => {
      await expectApplicationRoleConfined(postgres);
    });
  });

  describe('in a data folder of an earlier version', () => {
    let dataDir: string;
    let postgres: RunningPostgres;

    beforeAll(async () => {
      dataDir = join(folder, 'earlier');
      await makeAsEarlierVersionsDid(dataDir);
      postgres = await startEmbeddedPostgres(dataDir, QUIET);
    }, 240_000);

    afterAll(() => postgres?.stop(), 60_000);

    it('refuses the password every earlier installation shared, and takes the generated one', async () => {
      await expect(connectAs(postgres.superuserUrl, { password: LEGACY_PASSWORD })).rejects.toMatchObject({ code: '28P01' });
      expect(await queryAs(postgres.superuserUrl, 'SELECT current_user AS role')).toEqual([{ role: 'guidepost' }]);
    });

    it('hands every schema and table over to the application role, with their data', async () => {
      await expectApplicationRoleConfined(postgres);
      const role = new URL(postgres.url).username;
      const notHandedOver = await queryAs(
        postgres.url,
        `SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = ANY($1) AND pg_get_userbyid(c.relowner) <> $2
         UNION ALL
         SELECT nspname, NULL FROM pg_namespace WHERE nspname = ANY($1) AND pg_get_userbyid(nspowner) <> $2`,
        [SERVICES.map((service) => service.schema), role],
      );
      expect(notHandedOver).toEqual([]);
      expect(await queryAs(postgres.url, 'SELECT id, name FROM gateway.accounts')).toEqual([{ id: 'acme', name: 'Acme' }]);
    });

    it('lets the application migrate its schemas further, down and up again', async () => {
      for (const service of SERVICES) {
        expect(await migrateServiceDatabase(postgres.url, service)).toEqual([]);
        const migrating = await new DataSource({
          type: 'postgres',
          url: postgres.url,
          schema: service.schema,
          migrations: service.migrations,
          migrationsTableName: 'migrations',
        }).initialize();
        try {
          await migrating.undoLastMigration({ transaction: 'each' });
          expect(await migrating.runMigrations({ transaction: 'each' })).toHaveLength(1);
        } finally {
          await migrating.destroy();
        }
      }
    }, 60_000);
  });

  describe('in a data folder whose path is too long for a Unix socket', () => {
    let postgres: RunningPostgres;

    beforeAll(async () => {
      const dataDir = join(folder, 'a-folder-name-long-enough-that-the-socket-path-would-pass-the-kernel-limit-of-108-bytes');
      await mkdir(dataDir);
      postgres = await startEmbeddedPostgres(dataDir, QUIET);
    }, 120_000);

    afterAll(() => postgres?.stop(), 60_000);

    it('listens on loopback instead, with the same passwords and roles', async () => {
      expect(new URL(postgres.url).hostname).toBe('127.0.0.1');
      await expect(connectAs(postgres.superuserUrl, { password: LEGACY_PASSWORD })).rejects.toMatchObject({ code: '28P01' });
      await expectApplicationRoleConfined(postgres);
    });
  });
});

/**
 * The application's role is no superuser and may not make roles or databases, run programs on the
 * server (`COPY ... TO PROGRAM`), read its files or connect to the server's other databases; it owns
 * its own database.
 */
async function expectApplicationRoleConfined(postgres: RunningPostgres): Promise<void> {
  expect(
    await queryAs(postgres.url, 'SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = current_user'),
  ).toEqual([{ rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolbypassrls: false }]);
  expect(
    await queryAs(
      postgres.url,
      'SELECT pg_get_userbyid(datdba) = current_user AS owner FROM pg_database WHERE datname = current_database()',
    ),
  ).toEqual([{ owner: true }]);
  await expect(queryAs(postgres.url, `COPY (SELECT 1) TO PROGRAM 'true'`)).rejects.toMatchObject({ code: '42501' });
  await expect(queryAs(postgres.url, `SELECT pg_read_file('postgresql.conf')`)).rejects.toMatchObject({ code: '42501' });
  await expect(connectAs(postgres.url, { database: 'postgres' })).rejects.toMatchObject({ code: '42501' });
}

/**
 * A data folder as versions before generated passwords left it: the superuser `guidepost` with the
 * password `guidepost`, owning the database and every schema and table it migrated, no other role,
 * and an account stored; its passwords file is gone.
 */
async function makeAsEarlierVersionsDid(dataDir: string): Promise<void> {
  const postgres = await startEmbeddedPostgres(dataDir, QUIET);
  try {
    const superuserOnDatabase = withDatabase(postgres.superuserUrl, 'guidepost');
    const applicationRole = new URL(postgres.url).username;
    await queryAs(postgres.superuserUrl, 'ALTER DATABASE guidepost OWNER TO guidepost');
    for (const service of SERVICES) await migrateServiceDatabase(superuserOnDatabase, service);
    await queryAs(superuserOnDatabase, `INSERT INTO gateway.accounts (id, name) VALUES ('acme', 'Acme')`);
    await queryAs(postgres.superuserUrl, `DROP ROLE ${applicationRole}`);
    await queryAs(postgres.superuserUrl, 'GRANT CONNECT, TEMPORARY ON DATABASE postgres, template1 TO PUBLIC');
    await queryAs(postgres.superuserUrl, `ALTER ROLE guidepost PASSWORD '${LEGACY_PASSWORD}'`);
  } finally {
    await postgres.stop();
  }
  await rm(join(dataDir, 'postgres.passwords.json'));
}

function withDatabase(url: string, database: string): string {
  const changed = new URL(url);
  changed.pathname = `/${database}`;
  return changed.toString();
}

/** Logs in with another password or to another database than the URL's, and out again; rejects with the server's refusal. */
async function connectAs(url: string, overrides: { password?: string; database?: string }): Promise<void> {
  const changed = new URL(overrides.database === undefined ? url : withDatabase(url, overrides.database));
  if (overrides.password !== undefined) changed.password = overrides.password;
  const client = new Client({ connectionString: changed.toString() });
  try {
    await client.connect();
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function queryAs(url: string, sql: string, values?: unknown[]): Promise<unknown[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
