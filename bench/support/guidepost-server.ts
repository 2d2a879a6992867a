import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pollUntil, settlesWithin } from './clock';

/** The standalone server started from the build (`npm run build`), with its own data folder. */
export interface GuidepostServer {
  readonly baseUrl: string;
  readonly pid: number;
  readonly dataDir: string;
  /** The generated admin token, read from `<dataDir>/secrets.json`. */
  readonly adminToken: string;
  /** SIGTERM, then SIGKILL of its process group (it and its PostgreSQL) if it has not exited in time. Idempotent. */
  stop(): Promise<void>;
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
const GROUP_EXIT_GRACE_MS = 5_000;
/** High enough that the per-account rate limit never answers 429 to the load generator. */
const UNTHROTTLED_REQUESTS_PER_SECOND = 1_000_000_000;

export async function startGuidepost(options: GuidepostServerOptions): Promise<GuidepostServer> {
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(process.execPath, [options.entryPoint], {
    cwd: REPO_ROOT,
    // Its own process group, so that a forced stop also ends the PostgreSQL server it started.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GUIDEPOST_HOST: '127.0.0.1',
      GUIDEPOST_PORT: String(options.port),
      GUIDEPOST_DATA_DIR: options.dataDir,
      GUIDEPOST_RATE_LIMIT_PER_SECOND: String(UNTHROTTLED_REQUESTS_PER_SECOND),
      GUIDEPOST_LOG_LEVEL: 'warn',
    },
  });
  const pid = child.pid;
  if (pid === undefined) {
    log.end();
    throw new Error(`could not start ${options.entryPoint}`);
  }
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = once(child, 'exit');
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= terminate(child, exited).finally(() => log.end()));
  try {
    await waitUntilReady(baseUrl, child, options.logFile);
    const adminToken = await adminTokenOf(options.dataDir);
    return { baseUrl, pid, dataDir: options.dataDir, adminToken, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitUntilReady(baseUrl: string, child: ChildProcess, logFile: string): Promise<void> {
  let lastProblem = 'no answer yet';
  await pollUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`Guidepost exited with code ${child.exitCode} before it was ready; see ${logFile}`);
      try {
        const response = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(5_000) });
        lastProblem = `GET /health/ready answered ${response.status}: ${await response.text()}`;
        return response.status === 200 ? true : undefined;
      } catch (error) {
        lastProblem = `GET /health/ready failed: ${(error as Error).message}`;
        return undefined;
      }
    },
    { timeoutMs: READY_TIMEOUT_MS, intervalMs: 250, describeWait: () => `Guidepost is not ready (${lastProblem}); see ${logFile}` },
  );
}

async function adminTokenOf(dataDir: string): Promise<string> {
  const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminToken?: unknown };
  if (typeof secrets.adminToken !== 'string') throw new Error(`${dataDir}/secrets.json holds no adminToken`);
  return secrets.adminToken;
}

async function terminate(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    if (!(await settlesWithin(exited, STOP_GRACE_MS))) {
      signalGroup(child, 'SIGKILL');
      await exited;
    }
  }
  // A PostgreSQL the server failed to stop would hold the data folder: after a moment to finish a
  // shutdown under way, end what is left of the group.
  await pollUntil(() => (groupIsAlive(child) ? undefined : true), {
    timeoutMs: GROUP_EXIT_GRACE_MS,
    intervalMs: 100,
    describeWait: () => 'process group still alive',
  }).catch(() => signalGroup(child, 'SIGKILL'));
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

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already empty.
  }
}
