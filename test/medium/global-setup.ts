import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadConfig, register } from 'tsconfig-paths';
import { mediumRun } from './medium-run';

/**
 * Starts the one embedded PostgreSQL of a run of the medium specs (the server the standalone shape
 * embeds, in a temporary folder) and hands its URLs (the application role's and the superuser's) to
 * the spec files, each of which makes a database of its own there, owned by the application role
 * (`openFreshDatabase`, `openServiceDatabase` of `@guidepost/platform-database/testing`).
 * Jest resolves the workspace's path aliases in spec files only, so this set-up, which runs in Jest's
 * parent process, registers them itself before it loads the library.
 */
export default async function globalSetup(): Promise<void> {
  const workspace = loadConfig(join(__dirname, '../..'));
  if (workspace.resultType === 'failed') throw new Error(`the workspace's path aliases cannot be read: ${workspace.message}`);
  register({ baseUrl: workspace.absoluteBaseUrl, paths: workspace.paths });
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded once the aliases they use resolve */
  const { startEmbeddedPostgres } = require('@guidepost/platform-database') as typeof import('@guidepost/platform-database');
  const { MEDIUM_POSTGRES_SUPERUSER_URL, MEDIUM_POSTGRES_URL } =
    require('@guidepost/platform-database/testing') as typeof import('@guidepost/platform-database/testing');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dataDir = await mkdtemp(join(tmpdir(), 'guidepost-medium-'));
  mediumRun.dataDir = dataDir;
  mediumRun.postgres = await startEmbeddedPostgres(dataDir, { log: () => undefined, warn: (message) => console.warn(message) });
  await forgoDurability(mediumRun.postgres.superuserUrl);
  process.env[MEDIUM_POSTGRES_URL] = mediumRun.postgres.url;
  process.env[MEDIUM_POSTGRES_SUPERUSER_URL] = mediumRun.postgres.superuserUrl;
}

/**
 * The run's data is thrown away at its end, so the server need not wait for the disk at each commit:
 * specs that commit thousands of transactions (the outbox relay's, the pruning's) run several times
 * faster on a busy machine. Everything else (SQL, locks, indexes, migrations) is the standalone shape's.
 */
async function forgoDurability(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const setting of ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off'])
      await client.query(`ALTER SYSTEM SET ${setting}`);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
}
