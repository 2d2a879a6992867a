import type { ClickHouseClient } from '@clickhouse/client';
import { type ClickHouseMigration, pendingMigrations } from './clickhouse-migration';

const MIGRATIONS_TABLE = 'schema_migrations';

interface Logger {
  log(message: string): void;
}

/**
 * Applies a service's pending migrations in order and records each in `schema_migrations` (one table
 * for every service using the store, keyed by service and version), so each is applied once.
 */
export async function migrateClickHouse(
  client: ClickHouseClient,
  service: string,
  migrations: readonly ClickHouseMigration[],
  logger: Logger,
): Promise<void> {
  for (const migration of await pendingClickHouseMigrations(client, service, migrations)) {
    for (const statement of migration.statements) await client.command({ query: statement });
    await client.insert({
      table: MIGRATIONS_TABLE,
      format: 'JSONEachRow',
      values: [{ service, version: migration.version, name: migration.name, applied_at: new Date().toISOString() }],
    });
    logger.log(`applied ${service} ClickHouse migration ${migration.version} ${migration.name}`);
  }
}

/** The service's migrations not yet recorded in the store, in order. */
export async function pendingClickHouseMigrations(
  client: ClickHouseClient,
  service: string,
  migrations: readonly ClickHouseMigration[],
): Promise<ClickHouseMigration[]> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
      service String,
      version UInt32,
      name String,
      applied_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree ORDER BY (service, version)`,
  });
  const applied = await client.query({
    query: `SELECT DISTINCT version FROM ${MIGRATIONS_TABLE} WHERE service = {service:String}`,
    query_params: { service },
    format: 'JSONEachRow',
  });
  const appliedVersions = new Set((await applied.json<{ version: number }>()).map((row) => row.version));
  return pendingMigrations(service, migrations, appliedVersions);
}
