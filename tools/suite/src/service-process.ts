import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

const READY_TIMEOUT_MS = 120_000;
/** Past a process's own grace period (GUIDEPOST_SHUTDOWN_GRACE_MS, 25 s by default), as Kubernetes' 30 s are. */
const STOP_GRACE_MS = 30_000;

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
  /** Whether it had to be killed (it had not exited within 30 s). */
  readonly killed: boolean;
}

/** One process of the suite (a service replica or the gateway), restartable on the same port. */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly entryPoint: string,
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
    private readonly cwd: string,
    private readonly launcher: ProcessLauncher = nodeLauncher,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process and resolves once `/health/ready` answers 200. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const launched = this.launcher({ name: this.name, entryPoint: this.entryPoint, args: [], env: this.env });
    const child = spawn(launched.command, launched.args, { cwd: this.cwd, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    this.child = child;
    this.exited = new Promise((done) => child.once('exit', () => log.end(done)));
    // The suite's processes never outlive the process that started them.
    const killOnExit = (): void => void child.kill('SIGKILL');
    process.once('exit', killOnExit);
    void this.exited.then(() => process.off('exit', killOnExit));
    await this.waitUntilReady();
  }

  /**
   * SIGTERM (a graceful stop; SIGKILL after a grace period), or the signal given, then waits for the
   * exit and tells how it went (undefined when the process was not running).
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<ProcessExit | undefined> {
    const child = this.child;
    if (!child || !this.running) return undefined;
    const signalledAt = Date.now();
    let killed = false;
    child.kill(signal);
    const forced = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, STOP_GRACE_MS);
    await this.exited;
    clearTimeout(forced);
    return { code: child.exitCode, signal: child.signalCode, afterMs: Date.now() - signalledAt, killed };
  }

  /** The last lines of the process's log, for failure messages. */
  async logTail(lines = 40): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.split('\n').slice(-lines).join('\n');
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let lastProblem = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.name} exited before it was ready:\n${await this.logTail()}`);
      try {
        const response = await fetch(`${this.url}/health/ready`, { signal: AbortSignal.timeout(5_000) });
        if (response.status === 200) return;
        lastProblem = `GET /health/ready answered ${response.status}: ${await response.text()}`;
      } catch (error) {
        lastProblem = (error as Error).message;
      }
      await delay(250);
    }
    await this.stop('SIGKILL');
    throw new Error(`${this.name} was not ready within ${READY_TIMEOUT_MS / 1000} s (${lastProblem}):\n${await this.logTail()}`);
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
    child.once('exit', (code) => (code === 0 ? done(output) : fail(new Error(`${entryPoint} ${args.join(' ')} exited with ${String(code)}:\n${output}`))));
  });
}
