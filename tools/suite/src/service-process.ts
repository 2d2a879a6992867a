import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, fetch } from 'undici';
import { whileBuildUnchanged } from './build-lock';

const READY_TIMEOUT_MS = 120_000;
/** Past a process's own grace period (GUIDEPOST_SHUTDOWN_GRACE_MS, 25 s by default), as Kubernetes' 30 s are. */
const STOP_GRACE_MS = 30_000;
/** After the process's exit, what it left in its group gets this long to finish a shutdown under way. */
const GROUP_EXIT_GRACE_MS = 5_000;
const REPORTED_LOG_LINES = 40;

/** One run of an entry point of the build: which process of the suite, its arguments and settings. */
export interface ProcessRun {
  readonly name: string;
  readonly entryPoint: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/** The command line that runs a process of the suite (spawned with the run's settings as its environment). */
export type ProcessLauncher = (run: ProcessRun) => { readonly command: string; readonly args: readonly string[] };

/** This Node on the build in `dist/`: how the suite runs by default. */
export const nodeLauncher: ProcessLauncher = (run) => ({ command: process.execPath, args: [run.entryPoint, ...run.args] });

/** How a process ended after `stop`. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** From the signal to the exit. */
  readonly afterMs: number;
  /** Whether it had to be killed (it had not exited within the grace period). */
  readonly killed: boolean;
}

/** A process that exited while nobody had asked it to stop: what it was, how it ended, what it said last. */
export interface UnexpectedExit {
  readonly name: string;
  readonly pid: number | undefined;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly logFile: string;
  /** The last lines of its output. */
  readonly logTail: string;
}

/** One line naming the process and how it ended, then the end of its output. */
export function describeUnexpectedExit(exit: UnexpectedExit): string {
  const how = exit.signal === null ? `exit code ${String(exit.code)}` : `signal ${exit.signal}`;
  return `${exit.name} (pid ${String(exit.pid)}) exited unexpectedly with ${how}; last lines of ${exit.logFile}:\n${exit.logTail}`;
}

/** What a process is and how it is run, watched and stopped. */
export interface ServiceProcessOptions {
  /** Its name in reports (`gateway`, `ingestion-0`, `standalone`). */
  readonly name: string;
  readonly entryPoint: string;
  readonly port: number;
  readonly env: NodeJS.ProcessEnv;
  /** Where its stdout and stderr go, appended over every start. */
  readonly logFile: string;
  readonly cwd: string;
  /** What runs it (this Node on the entry point when absent; e.g. `containerLauncher` for an image). */
  readonly launcher?: ProcessLauncher;
  /**
   * The build lock (`buildLockOf`) to hold shared from the spawn until the process is ready, when it
   * loads its code from this checkout's `dist/`: no build then rewrites it under the starting process.
   */
  readonly buildLock?: string;
  /**
   * Its own process group, ended with it: for a process that starts others (the standalone host's
   * embedded PostgreSQL), so that a forced stop leaves nothing behind.
   */
  readonly processGroup?: boolean;
  readonly readyTimeoutMs?: number;
  /** Set when the process serves HTTPS: the PEM certificate that vouches for its own (itself, when self-signed). */
  readonly trustedCertificate?: string;
  /** From the stop signal to SIGKILL. */
  readonly stopGraceMs?: number;
  /** Told when the process exits without `stop` (default: the report on stderr). */
  readonly onUnexpectedExit?: (exit: UnexpectedExit) => void;
}

/**
 * One process started for a test, the benchmark or `npm run suite` (a service replica, the gateway, a
 * standalone server), restartable on the same port: the one launcher they share. It is ready once
 * `/health/ready` answers 200; a process that dies without being asked to stop is reported (its
 * name, exit code or signal, and the end of its output) rather than found later as refused requests.
 */
export class ServiceProcess {
  readonly name: string;
  readonly entryPoint: string;
  readonly port: number;
  readonly logFile: string;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  /** Set once ready, cleared by `stop`: an exit meanwhile is unexpected (a failed start is its own error). */
  private serving = false;

  constructor(private readonly options: ServiceProcessOptions) {
    this.name = options.name;
    this.entryPoint = options.entryPoint;
    this.port = options.port;
    this.logFile = options.logFile;
  }

  get url(): string {
    return `${this.options.trustedCertificate === undefined ? 'http' : 'https'}://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The running process's id (undefined before the first start). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and resolves once `/health/ready` answers 200. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const { buildLock } = this.options;
    if (buildLock === undefined) await this.spawnAndWait();
    else await whileBuildUnchanged(buildLock, () => this.spawnAndWait());
  }

  /**
   * SIGTERM (a graceful stop; SIGKILL after the grace period), or the signal given, then waits for the
   * exit and tells how it went (undefined when the process was not running).
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<ProcessExit | undefined> {
    const child = this.child;
    if (!child || !this.running) return undefined;
    this.serving = false;
    const signalledAt = Date.now();
    let killed = false;
    child.kill(signal);
    const forced = setTimeout(() => {
      killed = true;
      this.kill(child, 'SIGKILL');
    }, this.options.stopGraceMs ?? STOP_GRACE_MS);
    await this.exited;
    clearTimeout(forced);
    return { code: child.exitCode, signal: child.signalCode, afterMs: Date.now() - signalledAt, killed };
  }

  /** The last lines of the process's log, for failure messages. */
  async logTail(lines = REPORTED_LOG_LINES): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.split('\n').slice(-lines).join('\n');
  }

  private async spawnAndWait(): Promise<void> {
    const { launcher = nodeLauncher, env, cwd, processGroup = false } = this.options;
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const launched = launcher({ name: this.name, entryPoint: this.entryPoint, args: [], env });
    const child = spawn(launched.command, launched.args, { cwd, env, detached: processGroup, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    this.child = child;
    const exit = new Promise<void>((done) => child.once('exit', () => done()));
    this.exited = exit.then(() => this.afterExit(child)).then(() => new Promise<void>((done) => log.end(done)));
    void exit.then(() => this.reportIfUnexpected(child));
    // The processes never outlive the process that started them.
    const killOnExit = (): void => this.kill(child, 'SIGKILL');
    process.once('exit', killOnExit);
    void this.exited.then(() => process.off('exit', killOnExit));
    await this.waitUntilReady();
    this.serving = true;
  }

  /** Whatever the process left in its group (a PostgreSQL it failed to stop) goes too, after a moment. */
  private async afterExit(child: ChildProcess): Promise<void> {
    if (!this.options.processGroup) return;
    const deadline = Date.now() + GROUP_EXIT_GRACE_MS;
    while (groupIsAlive(child) && Date.now() < deadline) await delay(100);
    signalGroup(child, 'SIGKILL');
  }

  private async reportIfUnexpected(child: ChildProcess): Promise<void> {
    if (!this.serving) return;
    this.serving = false;
    const exit: UnexpectedExit = {
      name: this.name,
      pid: child.pid,
      code: child.exitCode,
      signal: child.signalCode,
      logFile: this.logFile,
      logTail: await this.logTail(),
    };
    const report =
      this.options.onUnexpectedExit ?? ((found: UnexpectedExit) => void process.stderr.write(`\n${describeUnexpectedExit(found)}\n`));
    report(exit);
  }

  /** A signal to the process, or to its whole group when it has one. */
  private kill(child: ChildProcess, signal: NodeJS.Signals): void {
    if (this.options.processGroup) signalGroup(child, signal);
    else child.kill(signal);
  }

  private async waitUntilReady(): Promise<void> {
    const { trustedCertificate } = this.options;
    const dispatcher = trustedCertificate === undefined ? undefined : new Agent({ connect: { ca: trustedCertificate } });
    try {
      await this.pollReadiness(dispatcher);
    } finally {
      await dispatcher?.close();
    }
  }

  private async pollReadiness(dispatcher: Agent | undefined): Promise<void> {
    const timeoutMs = this.options.readyTimeoutMs ?? READY_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    let lastProblem = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.running) {
        await this.exited;
        throw new Error(`${this.name} exited with ${exitOf(this.child)} before it was ready:\n${await this.logTail()}`);
      }
      try {
        const response = await fetch(`${this.url}/health/ready`, { signal: AbortSignal.timeout(5_000), dispatcher });
        if (response.status === 200) return;
        lastProblem = `GET /health/ready answered ${response.status}: ${await response.text()}`;
      } catch (error) {
        lastProblem = (error as Error).message;
      }
      await delay(250);
    }
    await this.stop('SIGKILL');
    throw new Error(`${this.name} was not ready within ${timeoutMs / 1000} s (${lastProblem}):\n${await this.logTail()}`);
  }
}

function exitOf(child: ChildProcess | undefined): string {
  return child?.signalCode ? `signal ${child.signalCode}` : `code ${String(child?.exitCode)}`;
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

/** Runs an entry point to completion (a command such as `migrate`); rejects with its output on failure. */
export function runToCompletion(run: ProcessRun, cwd: string, launcher: ProcessLauncher = nodeLauncher): Promise<string> {
  const { entryPoint, args, env } = run;
  return new Promise((done, fail) => {
    const launched = launcher(run);
    const child = spawn(launched.command, launched.args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) =>
      code === 0 ? done(output) : fail(new Error(`${entryPoint} ${args.join(' ')} exited with ${String(code)}:\n${output}`)),
    );
  });
}
