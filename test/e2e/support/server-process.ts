import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
import { type ProcessExit, type ProcessLauncher, ServiceProcess } from '../../../tools/suite/src/service-process';

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
  /**
   * SIGTERM (or the signal given: SIGKILL is a crash), then waits for the exit (SIGKILL after 30 s) and
   * tells how it went; what the process leaves in its group is killed 5 s later. `start` starts the server again.
   */
  terminate(signal?: NodeJS.Signals): Promise<ServerExit>;
  /** Starts the server again after `terminate`, on the same port, token and data folder. */
  start(): Promise<void>;
}

/** How a server process ended after its signal (SIGKILL of its group after 30 s). */
export type ServerExit = ProcessExit;

export interface StartServerOptions {
  /** Extra or overriding environment variables for the server process. */
  readonly env?: Record<string, string>;
  /** Data folder to use (kept after stop); a fresh temporary folder when absent. */
  readonly dataDir?: string;
  /** The standalone build to start (default: this checkout's, or `GUIDEPOST_E2E_ENTRY_POINT`), and where. */
  readonly entryPoint?: string;
  readonly cwd?: string;
  /** Set when `env` gives the server a certificate (GUIDEPOST_TLS_*): the PEM certificate that vouches for it; `baseUrl` is then https. */
  readonly trustedCertificate?: string;
  /** What runs the entry point: this Node when absent (e.g. `script`, to give the server a terminal). */
  readonly launcher?: ProcessLauncher;
}

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
/** The standalone build to start; `GUIDEPOST_E2E_ENTRY_POINT` points at another build (say a copy of `dist`). */
const ENTRY_POINT = process.env['GUIDEPOST_E2E_ENTRY_POINT'] ?? 'dist/apps/standalone/src/main.js';
/** How the standalone host's event store engine process is told from its other children. */
const ENGINE_ENTRY_POINT = 'chdb-server/src/main.js';
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
  const baseUrl = `${options.trustedCertificate === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
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

  const start: Launch = {
    entryPoint: options.entryPoint ?? ENTRY_POINT,
    cwd: options.cwd ?? REPO_ROOT,
    trustedCertificate: options.trustedCertificate,
    launcher: options.launcher,
  };
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
    async terminate(signal?: NodeJS.Signals) {
      if (!running) throw new Error('the server is not running');
      const exit = await terminate(running, signal);
      running = undefined;
      return exit;
    },
    async start() {
      if (running) throw new Error('the server is already running');
      running = await launch(start, env, port, logFile);
    },
  };
}

interface Launch {
  readonly entryPoint: string;
  readonly cwd: string;
  readonly trustedCertificate: string | undefined;
  readonly launcher: ProcessLauncher | undefined;
}

/** The standalone server under the one launcher: its own process group, which holds its embedded PostgreSQL. */
async function launch(start: Launch, env: NodeJS.ProcessEnv, port: number, logFile: string): Promise<ServiceProcess> {
  const server = new ServiceProcess({
    name: 'standalone',
    entryPoint: start.entryPoint,
    launcher: start.launcher,
    port,
    env,
    logFile,
    cwd: start.cwd,
    buildLock: buildLockOf(REPO_ROOT),
    processGroup: true,
    readyTimeoutMs: READY_TIMEOUT_MS,
    trustedCertificate: start.trustedCertificate,
    stopGraceMs: STOP_GRACE_MS,
  });
  await server.start();
  return server;
}

async function terminate(server: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<ServerExit> {
  const exit = await server.stop(signal);
  if (exit === undefined) throw new Error('the server was not running');
  return exit;
}

/**
 * The server's event store engine process (a child running the chdb front, in a session of its own)
 * that is none of `seen`; throws until there is one.
 */
export async function eventStoreEngineOf(server: RunningServer, seen: readonly number[] = []): Promise<number> {
  const serverPid = server.pid();
  if (serverPid === undefined) throw new Error('the server is not running');
  const children = await childrenOf(serverPid);
  for (const pid of children) {
    if ((await commandLineOf(pid)).includes(ENGINE_ENTRY_POINT) && !seen.includes(pid)) return pid;
  }
  throw new Error(`no new event store engine among the children of ${serverPid}: ${children.join(', ') || 'none'}`);
}

/** The server's embedded PostgreSQL: its postmaster, the first `postgres` among the server's descendants. */
export async function embeddedPostgresOf(server: RunningServer): Promise<number> {
  const serverPid = server.pid();
  if (serverPid === undefined) throw new Error('the server is not running');
  for (const pid of await processTreeOf(serverPid)) {
    if (/(^|\/)postgres$/.test((await commandLineOf(pid)).split('\0', 1)[0])) return pid;
  }
  throw new Error(`no embedded PostgreSQL among the descendants of ${serverPid}`);
}

/** A process and all its descendants, parents first. */
export async function processTreeOf(pid: number): Promise<number[]> {
  const tree = [pid];
  for (const child of await childrenOf(pid)) tree.push(...(await processTreeOf(child)));
  return tree;
}

/** Sends `signal` to a process and all its descendants (SIGSTOP freezes a store whole: PostgreSQL serves from children). */
export async function signalProcessTree(pid: number, signal: NodeJS.Signals): Promise<void> {
  for (const member of await processTreeOf(pid)) process.kill(member, signal);
}

async function childrenOf(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return children.trim().split(/\s+/).filter(Boolean).map(Number);
}

async function commandLineOf(pid: number): Promise<string> {
  return readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
}

export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
