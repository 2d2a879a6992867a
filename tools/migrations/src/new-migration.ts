import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Each service's PostgreSQL migration registry (the `<SERVICE>_DATABASE` options listing its migrations). */
export const MIGRATION_REGISTRIES = {
  gateway: 'libs/gateway/src/data-access/gateway-database.ts',
  content: 'libs/content/src/data-access/content-database.ts',
  segment: 'libs/segment/src/data-access/segment-database.ts',
  profile: 'libs/profile/src/data-access/profile-database.ts',
  ingestion: 'libs/ingestion/src/data-access/ingestion-database.ts',
} as const;

export type MigrationService = keyof typeof MIGRATION_REGISTRIES;

export interface NewMigration {
  /** Repository-relative path of the migration file written. */
  readonly path: string;
  readonly className: string;
  readonly timestamp: number;
}

const KEBAB_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** TypeORM orders migrations by the 13 digits ending their class name (a JavaScript timestamp). */
const CLASS_TIMESTAMP = /\b[A-Z][A-Za-z0-9]*?(\d{13})\b/g;

/**
 * Writes a new PostgreSQL migration of `service` named `name` (kebab case) under the repository `root`
 * and appends it to the service's registry. Its order is a timestamp: `now`, or one past the newest
 * migration already listed when that one is later (hand-numbered migrations carry timestamps chosen
 * by hand, some of them ahead of the clock), so the new one always runs last. The file name starts
 * with the same timestamp, which sorts after the older `0001-`-style names and cannot collide when two
 * branches each add a migration.
 */
export function writeNewMigration(root: string, service: string, name: string, now = Date.now()): NewMigration {
  if (!isMigrationService(service)) throw new Error(`unknown service '${service}': one of ${Object.keys(MIGRATION_REGISTRIES).join(', ')}`);
  if (!KEBAB_NAME.test(name)) throw new Error(`migration name '${name}' must be kebab case, e.g. add-tag-colors`);
  const registryPath = join(root, MIGRATION_REGISTRIES[service]);
  const registry = readFileSync(registryPath, 'utf8');
  const timestamp = Math.max(now, newestTimestamp(registry, join(registryPath, '..', 'migrations')) + 1);
  const className = `${pascalCase(name)}${timestamp}`;
  const fileName = `${timestamp}-${name}`;
  const path = `${MIGRATION_REGISTRIES[service].replace(/[^/]+$/, '')}migrations/${fileName}.ts`;
  writeFileSync(join(root, path), migrationSkeleton(className, service), { flag: 'wx' });
  writeFileSync(registryPath, registered(registry, className, fileName));
  return { path, className, timestamp };
}

function isMigrationService(service: string): service is MigrationService {
  return Object.hasOwn(MIGRATION_REGISTRIES, service);
}

/** The latest order among the registered migrations and the files beside them (one may be unregistered). */
function newestTimestamp(registry: string, migrationsDir: string): number {
  const sources = [registry, ...readdirSync(migrationsDir).map((file) => readFileSync(join(migrationsDir, file), 'utf8'))];
  const timestamps = sources.flatMap((source) => [...source.matchAll(CLASS_TIMESTAMP)].map((match) => Number(match[1])));
  return Math.max(0, ...timestamps);
}

function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
}

/** The registry with the migration imported after the last migration import and listed last. */
function registered(registry: string, className: string, fileName: string): string {
  const lines = registry.split('\n');
  const lastImport = lines.findLastIndex((line) => line.includes(`from './migrations/`));
  const listStart = lines.findIndex((line) => /^\s*migrations: \[\s*$/.test(line));
  const listEnd = lines.findIndex((line, index) => index > listStart && /^\s*\],?\s*$/.test(line));
  if (lastImport < 0 || listStart < 0 || listEnd < 0) throw new Error('registry without migration imports or a `migrations: [` list');
  const itemIndent = lines[listEnd].match(/^\s*/)![0] + '  ';
  lines.splice(listEnd, 0, `${itemIndent}${className},`);
  lines.splice(lastImport + 1, 0, `import { ${className} } from './migrations/${fileName}';`);
  return lines.join('\n');
}

/** Fails until written, so a forgotten skeleton cannot pass for an applied migration. */
function migrationSkeleton(className: string, schema: string): string {
  return `import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What this migration changes, and why. */
export class ${className} implements MigrationInterface {
  name = '${className}';

  up(_queryRunner: QueryRunner): Promise<void> {
    return Promise.reject(new Error('${className}.up is not written yet (schema-qualified names: ${schema}.<table>)'));
  }

  down(_queryRunner: QueryRunner): Promise<void> {
    return Promise.reject(new Error('${className}.down is not written yet'));
  }
}
`;
}
