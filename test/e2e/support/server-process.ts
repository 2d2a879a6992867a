import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
// A relative path, not the alias: jest loads global set-up (which starts this server) without its module mapping.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { freeLoopbackPort } from '../../../tools/suite/src/loopback-port';

/** A Guidepost standalone process started for the suite. */
export interface RunningServer {
  readonly baseUrl: string;
  readonly adminToken: string;
  readonly dataDir: string;
  /** stdout and stderr of every start of this server, appended. */
  readonly logFile: string;
  /** SIGTERM, wait for exit (SIGKILL after 30 s); removes the temporary folder unless `dataDir` was given. */
  stop(): Promise<void>;
  /** Stops and starts again on the same port, token and data folder (state must survive). */
  restart(): Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after 30 s) and tells how it went; `start` starts the server again. */
  terminate(): Promise<ServerExit>;
  /** Starts the server again after `terminate`, on the same port, token and data folder. */
  start(): Promise<void>;
}

/** How a server process ended after its SIGTERM. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** From the SIGTERM to the exit. */
  readonly afterMs: number;
  /** Whether it had to be killed (it did not exit within 30 s). */
  readonly killed: boolean;
}

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
const LOG_TAIL_LINES = 60;

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const workDir = await mkdtemp(join(tmpdir(), 'guidepost-e2e-'));
  const dataDir = options.dataDir ?? join(workDir, 'data');
  const logFile = join(workDir, 'server.log');
  const port = await freeLoopbackPort();
  const adminToken = randomBytes(24).toString('hex');
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GUIDEPOST_PORT: String(port),
    GUIDEPOST_HOST: '127.0.0.1',
    GUIDEPOST_DATA_DIR: dataDir,
    GUIDEPOST_ADMIN_TOKEN: adminToken,
    GUIDEPOST_LOG_LEVEL: 'warn',
    ...options.env,
  };

  const start = { entryPoint: options.entryPoint ?? ENTRY_POINT, cwd: options.cwd ?? REPO_ROOT };
  let running: LaunchedProcess | undefined = await launch(start, env, baseUrl, logFile);
  return {
    baseUrl,
    adminToken,
    dataDir,
    logFile,
    async stop() {
      await running?.terminate();
      running = undefined;
      if (options.dataDir === undefined && process.env['GUIDEPOST_E2E_KEEP'] !== '1') {
        await rm(workDir, { recursive: true, force: true });
      }
    },
    async restart() {
      await running?.terminate();
      running = undefined;
      running = await launch(start, env, baseUrl, logFile);
    },
    async terminate() {
      if (!running) throw new Error('the server is not running');
      const exit = await running.terminate();
      running = undefined;
      return exit;
    },
    async start() {
      if (running) throw new Error('the server is already running');
      running = await launch(start, env, baseUrl, logFile);
    },
  };
}

interface LaunchedProcess {
  terminate(): Promise<ServerExit>;
}

async function launch(start: { entryPoint: string; cwd: string }, env: NodeJS.ProcessEnv, baseUrl: string, logFile: string): Promise<LaunchedProcess> {
  const log = createWriteStream(logFile, { flags: 'a' });
  // Its own process group, so that a forced stop also ends what it spawned there (its embedded PostgreSQL
  // runs in a group of its own, and stops when the server process dies).
  const child = spawn(process.execPath, [start.entryPoint], { cwd: start.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  // Detached, the server would outlive a test run that ends abruptly; take it down with the run.
  const killOnExit = () => killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  try {
    await waitUntilReady(baseUrl, exited);
  } catch (error) {
    await terminate(child, exited, log);
    const tail = await logTail(logFile);
    throw new Error(`${(error as Error).message}\n--- last lines of ${logFile} ---\n${tail}`);
  }
  return { terminate: () => terminate(child, exited, log) };
}

async function waitUntilReady(baseUrl: string, exited: Promise<number | null>): Promise<void> {
  let processExit: number | null | undefined;
  void exited.then((code) => (processExit = code));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (processExit !== undefined) throw new Error(`Guidepost exited with code ${String(processExit)} before it was ready`);
    try {
      const response = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(5_000) });
      if (response.status === 200) return;
      lastProblem = `GET /health/ready answered ${response.status}: ${await response.text()}`;
    } catch (error) {
      lastProblem = `GET /health/ready failed: ${(error as Error).message}`;
    }
    await delay(250);
  }
  throw new Error(`Guidepost was not ready within ${READY_TIMEOUT_MS / 1000} s (${lastProblem})`);
}

async function terminate(child: ChildProcess, exited: Promise<number | null>, log: WriteStream): Promise<ServerExit> {
  const signalledAt = Date.now();
  let killed = false;
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    if (!(await exitsWithin(exited, STOP_GRACE_MS))) {
      killed = true;
      killGroup(child, 'SIGKILL');
      await exited;
    }
  }
  const exit: ServerExit = { code: child.exitCode, signal: child.signalCode, afterMs: Date.now() - signalledAt, killed };
  // Whatever the process left behind in its group (a PostgreSQL it failed to stop) goes too, after a
  // moment to finish a shutdown already under way.
  const deadline = Date.now() + 5_000;
  while (groupIsAlive(child) && Date.now() < deadline) await delay(100);
  killGroup(child, 'SIGKILL');
  await new Promise<void>((done) => log.end(done));
  return exit;
}

function groupIsAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the process exits within `ms`; the timer is cleared so it never holds the test run open. */
async function exitsWithin(exited: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((done) => (timer = setTimeout(() => done(false), ms)));
  try {
    return await Promise.race([exited.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already empty.
  }
}

async function logTail(logFile: string): Promise<string> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text.split('\n').slice(-LOG_TAIL_LINES).join('\n');
}


export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
