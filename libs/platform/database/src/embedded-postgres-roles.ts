import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, type ClientConfig } from 'pg';
import { StartupError } from '@guidepost/platform-config';

/** The database the application uses. */
export const DATABASE_NAME = 'guidepost';
/** The superuser `initdb` makes (the name every earlier version used too); only start-up connects as it. */
export const SUPERUSER = 'guidepost';
/** The role the application connects as: the owner of its database and schemas, not a superuser. */
export const APPLICATION_ROLE = 'guidepost_app';
/** The superuser's password in every cluster made before passwords were generated. */
const LEGACY_SUPERUSER_PASSWORD = 'guidepost';
const PASSWORDS_FILE = 'postgres.passwords.json';
/** SQLSTATE of a refused password (`invalid_password`). */
const AUTHENTICATION_FAILED = '28P01';

/** The passwords of the embedded cluster's two roles, generated at its first start and kept in the data folder. */
export interface PostgresPasswords {
  readonly superuser: string;
  readonly application: string;
}

/** Where a client reaches the server: the folder of its Unix socket (an absolute path) or a loopback address, and its port. */
export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * The cluster's passwords from `<dataDir>/postgres.passwords.json` (mode 0600), generated and kept
 * there when the file is missing: at a first start, or the first start of a cluster made by an
 * earlier version, whose superuser `secureCluster` then moves to the generated password. The file
 * is written whole under another name and renamed, so a crash never leaves half of it.
 */
export async function passwordsOf(dataDir: string): Promise<PostgresPasswords> {
  const file = join(dataDir, PASSWORDS_FILE);
  const stored = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (stored !== undefined) return parsePasswords(stored, file);
  const generated: PostgresPasswords = { superuser: randomPassword(), application: randomPassword() };
  await writeFile(`${file}.partial`, JSON.stringify(generated, null, 2), { mode: 0o600 });
  await rename(`${file}.partial`, file);
  return generated;
}

function parsePasswords(text: string, file: string): PostgresPasswords {
  const parsed = JSON.parse(text) as Partial<PostgresPasswords>;
  if (typeof parsed.superuser !== 'string' || typeof parsed.application !== 'string') {
    throw new StartupError(
      `${file} does not hold the embedded PostgreSQL's passwords (a "superuser" and an "application" string)`,
      'restore that file from a backup of the data folder',
    );
  }
  return { superuser: parsed.superuser, application: parsed.application };
}

function randomPassword(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Makes the running cluster what the application may use, at every start (each step does nothing
 * when already done): the superuser has the generated password, the application role exists with its
 * password and no privilege beyond its own database, which it owns with every schema and table in it,
 * and no one else may connect to the server's other databases. A cluster made by an earlier version
 * (superuser `guidepost`, password `guidepost`, owning everything) is migrated so on its first start.
 */
export async function secureCluster(server: ServerAddress, passwords: PostgresPasswords, dataDir: string): Promise<void> {
  await asSuperuser(server, passwords, dataDir, 'postgres', async (client) => {
    await ensureApplicationRole(client, passwords.application);
    await ensureOwnedDatabase(client);
    // The application reaches its own database only: `postgres` and `template1` are for the superuser.
    await client.query('REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC');
  });
  await asSuperuser(server, passwords, dataDir, DATABASE_NAME, handOverSchemas);
}

async function ensureApplicationRole(client: Client, password: string): Promise<void> {
  const existing = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APPLICATION_ROLE]);
  if (existing.rowCount === 0) await client.query(`CREATE ROLE ${APPLICATION_ROLE}`);
  await client.query(
    `ALTER ROLE ${APPLICATION_ROLE} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(password)}`,
  );
}

async function ensureOwnedDatabase(client: Client): Promise<void> {
  const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
  await client.query(
    existing.rowCount === 0
      ? `CREATE DATABASE ${DATABASE_NAME} OWNER ${APPLICATION_ROLE}`
      : `ALTER DATABASE ${DATABASE_NAME} OWNER TO ${APPLICATION_ROLE}`,
  );
}

/**
 * Earlier versions migrated the schemas as the superuser, which therefore owns them and their tables
 * (the tables' indexes and serial sequences follow their table). The application role takes them
 * over, so that it can use them and later migrations can alter them.
 */
async function handOverSchemas(client: Client): Promise<void> {
  const statements = await client.query<{ statement: string }>(
    `SELECT format('ALTER SCHEMA %I OWNER TO %I', n.nspname, $1::text) AS statement, 0 AS step
       FROM pg_namespace n
      WHERE n.nspowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
        AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
     UNION ALL
     SELECT format('ALTER TABLE %I.%I OWNER TO %I', n.nspname, c.relname, $1::text), 1
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
        AND c.relkind IN ('r', 'p')
        AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
     ORDER BY step`,
    [APPLICATION_ROLE],
  );
  if (statements.rowCount === 0) return;
  await client.query('BEGIN');
  for (const { statement } of statements.rows) await client.query(statement);
  await client.query('COMMIT');
}

/**
 * Runs `work` connected as the superuser. A cluster of an earlier version refuses the generated
 * password: its superuser still has the one every installation shared, which is replaced at once.
 */
async function asSuperuser(
  server: ServerAddress,
  passwords: PostgresPasswords,
  dataDir: string,
  database: string,
  work: (client: Client) => Promise<void>,
): Promise<void> {
  const target: ClientConfig = { ...server, user: SUPERUSER, database };
  let client = await connectedOrRefused({ ...target, password: passwords.superuser });
  if (client === undefined) {
    client = await connectedOrRefused({ ...target, password: LEGACY_SUPERUSER_PASSWORD });
    if (client === undefined) {
      throw new StartupError(
        `the embedded PostgreSQL refuses the superuser password kept in ${join(dataDir, PASSWORDS_FILE)}`,
        `restore that file from the backup of the data folder its cluster (${join(dataDir, 'postgres')}) came from`,
      );
    }
    await client.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${client.escapeLiteral(passwords.superuser)}`);
  }
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/** A connected client, or undefined when the server refused the password. */
async function connectedOrRefused(config: ClientConfig): Promise<Client | undefined> {
  const client = new Client(config);
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    if (isRefusedPassword(error)) return undefined;
    throw error;
  }
}

export function isRefusedPassword(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === AUTHENTICATION_FAILED;
}

/** Whether the server is reached through the Unix socket in a folder (as `pg` tells: a host that is an absolute path). */
export function onUnixSocket(server: ServerAddress): boolean {
  return server.host.startsWith('/');
}

/**
 * A `postgres://` URL of the server for a role and database. A socket's folder goes in the `host`
 * parameter, which `pg` reads in place of the URL's host (and TypeORM passes the URL on to `pg`).
 */
export function connectionUrl(server: ServerAddress, user: string, password: string, database: string): string {
  const url = new URL(`postgres://${onUnixSocket(server) ? 'localhost' : server.host}:${server.port}/${database}`);
  url.username = user;
  url.password = password;
  if (onUnixSocket(server)) url.searchParams.set('host', server.host);
  return url.toString();
}
