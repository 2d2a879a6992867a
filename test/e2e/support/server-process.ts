import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
// Relative paths, not the alias: jest loads global set-up (which starts this server) without its module mapping.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { buildLockOf } from '../../../tools/suite/src/build-lock';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { withoutInfrastructure } from '../../../tools/suite/src/infrastructure';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { freeLoopbackPort } from '../../../tools/suite/src/loopback-port';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { type ProcessExit, ServiceProcess } from '../../../tools/suite/src/service-process';

/** A Guidepost standalone process started for the suite. */
export interface RunningServer {
  readonly baseUrl: string;
  readonly adminToken: string;
  readonly dataDir: string;
  /** stdout and stderr of every start of this server, appended. */
  readonly logFile: string;
  /** The server's process id; undefined while it is stopped. */
  pid(): number | undefined;
  /** SIGTERM, wait for exit (SIGKILL after 30 s); removes the temporary folder unless `dataDir` was given. */
  stop(): Promise<void>;
  /** Stops and starts again on the same port, token and data folder (state must survive). */
  restart(): Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after 30 s) and tells how it went; `start` starts the server again. */
  terminate(): Promise<ServerExit>;
  /** Starts the server again after `terminate`, on the same port, token and data folder. */
  start(): Promise<void>;
}

/** How a server process ended after its SIGTERM (SIGKILL of its group after 30 s). */
export type ServerExit = ProcessExit;

export interface StartServerOptions {
  /** Extra or overriding environment variables for the server process. */
  readonly env?: Record<string, string>;
  /** Data folder to use (kept after stop); a fresh temporary folder when absent. */
  readonly dataDir?: string;
  /** The standalone build to start (default: this checkout's, or `GUIDEPOST_E2E_ENTRY_POINT`), and where. */
  readonly entryPoint?: string;
  readonly cwd?: string;
}

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
/** The standalone build to start; `GUIDEPOST_E2E_ENTRY_POINT` points at another build (say a copy of `dist`). */
const ENTRY_POINT = process.env['GUIDEPOST_E2E_ENTRY_POINT'] ?? 'dist/apps/standalone/src/main.js';
// The embedded PostgreSQL initialises its cluster on a first start, which takes a while.
const READY_TIMEOUT_MS = 120_000;
/** Past the server's own grace period (25 s by default), as an orchestrator's kill timeout is. */
const STOP_GRACE_MS = 30_000;

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const workDir = await mkdtemp(join(tmpdir(), 'guidepost-e2e-'));
  const dataDir = options.dataDir ?? join(workDir, 'data');
  const logFile = join(workDir, 'server.log');
  const port = await freeLoopbackPort();
  const adminToken = randomBytes(24).toString('hex');
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    // A shell that sourced the servers' endpoints (infra.env) must not turn this standalone server distributed.
    ...withoutInfrastructure(process.env),
    GUIDEPOST_PORT: String(port),
    GUIDEPOST_HOST: '127.0.0.1',
    GUIDEPOST_DATA_DIR: dataDir,
    GUIDEPOST_ADMIN_TOKEN: adminToken,
    GUIDEPOST_LOG_LEVEL: 'warn',
    ...options.env,
  };

  const start = { entryPoint: options.entryPoint ?? ENTRY_POINT, cwd: options.cwd ?? REPO_ROOT };
  let running: ServiceProcess | undefined = await launch(start, env, port, logFile);
  return {
    baseUrl,
    adminToken,
    dataDir,
    logFile,
    pid: () => running?.pid,
    async stop() {
      await running?.stop();
      running = undefined;
      if (options.dataDir === undefined && process.env['GUIDEPOST_E2E_KEEP'] !== '1') {
        await rm(workDir, { recursive: true, force: true });
      }
    },
    async restart() {
      await running?.stop();
      running = undefined;
      running = await launch(start, env, port, logFile);
    },
    async terminate() {
      if (!running) throw new Error('the server is not running');
      const exit = await terminate(running);
      running = undefined;
      return exit;
    },
    async start() {
      if (running) throw new Error('the server is already running');
      running = await launch(start, env, port, logFile);
    },
  };
}

/** The standalone server under the one launcher: its own process group, which holds its embedded PostgreSQL. */
async function launch(start: { entryPoint: string; cwd: string }, env: NodeJS.ProcessEnv, port: number, logFile: string): Promise<ServiceProcess> {
  const server = new ServiceProcess({
    name: 'standalone',
    entryPoint: start.entryPoint,
    port,
    env,
    logFile,
    cwd: start.cwd,
    buildLock: buildLockOf(REPO_ROOT),
    processGroup: true,
    readyTimeoutMs: READY_TIMEOUT_MS,
    stopGraceMs: STOP_GRACE_MS,
  });
  await server.start();
  return server;
}

async function terminate(server: ServiceProcess): Promise<ServerExit> {
  const exit = await server.stop();
  if (exit === undefined) throw new Error('the server was not running');
  return exit;
}

export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
