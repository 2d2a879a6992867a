import { existsSync } from 'node:fs';
import { writeNewMigration } from './new-migration';

/**
 * `npm run migration:new -- <service> <name>`: writes a PostgreSQL migration skeleton for a service
 * (gateway, content, segment, profile, ingestion) and registers it last. Run from the repository root.
 */
function main(): void {
  const [service, name] = process.argv.slice(2);
  if (!service || !name) throw new Error('usage: npm run migration:new -- <service> <kebab-case-name>');
  if (!existsSync('nx.json')) throw new Error('run from the repository root');
  const migration = writeNewMigration(process.cwd(), service, name);
  console.log(`wrote ${migration.path} (${migration.className}), registered last; write its up and down`);
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
