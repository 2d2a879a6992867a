import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
// The one launcher of the tests and the suite (relative: the benchmark is compiled on its own, bench/tsconfig.json).
import { buildLockOf } from '../../tools/suite/src/build-lock';
import { withoutInfrastructure } from '../../tools/suite/src/infrastructure';
import { ServiceProcess } from '../../tools/suite/src/service-process';
import { startChdbHttpServer } from '@guidepost/platform-chdb-server';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';
import { loadConfig } from '@guidepost/platform-config';
import type { Deployment, EventStoreConnection } from './deployment';

/**
 * The standalone server started from the build (`npm run build`), with its own data folder; its
 * admin token is the generated one, read from `<dataDir>/secrets.json`; `stop()` sends SIGTERM, then
 * SIGKILL to its process group (it, its PostgreSQL and its event store's engine) if it has not exited in time.
 */
export interface GuidepostServer extends Deployment {
  readonly shape: 'standalone';
  readonly pid: number;
  readonly dataDir: string;
}

export interface GuidepostServerOptions {
  /** The standalone host's compiled entry point, relative to the repository. */
  readonly entryPoint: string;
  readonly port: number;
  readonly dataDir: string;
  readonly logFile: string;
}

// Compiled to dist/bench/bench/support: the repository is four levels up.
const REPO_ROOT = resolve(__dirname, '..', '..', '..', '..');
/** The embedded PostgreSQL initialises its cluster on a first start. */
const READY_TIMEOUT_MS = 180_000;
const STOP_GRACE_MS = 60_000;
/** High enough that the per-account rate limit never answers 429 to the load generator. */
const UNTHROTTLED_REQUESTS_PER_SECOND = 1_000_000_000;

export async function startGuidepost(options: GuidepostServerOptions): Promise<GuidepostServer> {
  const server = new ServiceProcess({
    name: 'standalone',
    entryPoint: options.entryPoint,
    port: options.port,
    cwd: REPO_ROOT,
    logFile: options.logFile,
    env: {
      // The stage measures (and `openEventStore` opens) the embedded stores, also from a shell that sourced infra.env.
      ...withoutInfrastructure(process.env),
      GUIDEPOST_HOST: '127.0.0.1',
      GUIDEPOST_PORT: String(options.port),
      GUIDEPOST_DATA_DIR: options.dataDir,
      GUIDEPOST_RATE_LIMIT_PER_SECOND: String(UNTHROTTLED_REQUESTS_PER_SECOND),
      GUIDEPOST_LOG_LEVEL: 'warn',
    },
    buildLock: buildLockOf(REPO_ROOT),
    // Its own process group, so that a forced stop also ends the PostgreSQL server it started.
    processGroup: true,
    readyTimeoutMs: READY_TIMEOUT_MS,
    stopGraceMs: STOP_GRACE_MS,
  });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopped ??= server.stop().then(() => undefined));
  try {
    await server.start();
    const adminToken = await adminTokenOf(options.dataDir);
    const pid = server.pid;
    if (pid === undefined) throw new Error(`${options.entryPoint} has no process id`);
    // One process tree: its embedded PostgreSQL's processes and its event store's engine are its children.
    const processes = [{ name: 'standalone (Node + chdb)', pid }];
    const openEventStore = async () => {
      await stop();
      return openEngine(options.dataDir);
    };
    return {
      shape: 'standalone',
      baseUrl: server.url,
      pid,
      processes,
      dataDir: options.dataDir,
      adminToken,
      openEventStore,
      exclusiveEventStore: true,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The stopped server's event store, served from this process as its engine process serves it (same folder, same memory budget). */
async function openEngine(dataDir: string): Promise<EventStoreConnection> {
  const defaults = loadConfig({});
  const front = await startChdbHttpServer({
    host: '127.0.0.1',
    port: 0,
    path: join(dataDir, 'clickhouse'),
    memoryBytes: defaults.clickhouseEngineMemoryBytes,
  });
  const client = createClickHouseClient(defaults.with({ clickhouseUrl: front.url }));
  return {
    client,
    close: async () => {
      await client.close();
      await front.close();
    },
  };
}

async function adminTokenOf(dataDir: string): Promise<string> {
  const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminToken?: unknown };
  if (typeof secrets.adminToken !== 'string') throw new Error(`${dataDir}/secrets.json holds no adminToken`);
  return secrets.adminToken;
}
