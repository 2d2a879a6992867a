import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { migrateServiceDatabase, type ServiceDatabaseOptions } from '../service-database.module';
import { MESSAGING_ENTITIES } from '../messaging.entities';

/**
 * The variables through which the medium specs' global set-up (test/medium) tells the spec files where
 * the run's embedded PostgreSQL is: the application role's URL, which the specs connect as (the role
 * the standalone shape uses, not a superuser), and the superuser's, which makes and drops their databases.
 */
export const MEDIUM_POSTGRES_URL = 'GUIDEPOST_MEDIUM_POSTGRES_URL';
export const MEDIUM_POSTGRES_SUPERUSER_URL = 'GUIDEPOST_MEDIUM_POSTGRES_SUPERUSER_URL';

function urlIn(variable: string): URL {
  const url = process.env[variable];
  if (!url) throw new Error(`${variable} is not set: run the medium specs through their Jest project (npm run test:medium)`);
  return new URL(url);
}

/** The application role's URL of one of the run's databases. */
function applicationUrl(database: string): string {
  const url = urlIn(MEDIUM_POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The role the specs connect as, which owns their databases. */
function applicationRole(): string {
  return decodeURIComponent(urlIn(MEDIUM_POSTGRES_URL).username);
}

async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: urlIn(MEDIUM_POSTGRES_SUPERUSER_URL).toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** An empty database of a spec file's own on the run's server. */
export interface FreshDatabase {
  readonly url: string;
  /** Deletes the database, closing what is still connected to it. */
  drop(): Promise<void>;
}

/** Makes an empty database of the calling spec file's own, owned by the application role (call it in `beforeAll`, and `drop` in `afterAll`). */
export async function openFreshDatabase(): Promise<FreshDatabase> {
  const name = `medium_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await onServer(`CREATE DATABASE ${name} OWNER ${applicationRole()}`);
  return { url: applicationUrl(name), drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A service's schema in a fresh database, migrated as at start-up, and a data source bound to it. */
export interface OpenServiceDatabase {
  readonly url: string;
  readonly dataSource: DataSource;
  /** Disconnects and drops the database. */
  release(): Promise<void>;
}

/**
 * Migrates a service's schema with its real migrations in a fresh database and connects to it as the
 * service does: bound to its schema, with its entities and the messaging ones (outbox, processed ids).
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<OpenServiceDatabase> {
  const database = await openFreshDatabase();
  await migrateServiceDatabase(database.url, options);
  const dataSource = await new DataSource({
    type: 'postgres',
    url: database.url,
    schema: options.schema,
    entities: [...(options.entities as []), ...MESSAGING_ENTITIES],
  }).initialize();
  return {
    url: database.url,
    dataSource,
    release: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}
