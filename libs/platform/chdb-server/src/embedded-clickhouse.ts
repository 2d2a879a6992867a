import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoggerService } from '@nestjs/common';
import { IdleCpuGroup } from './idle-cpu-group';
import { PASSWORD_VARIABLE, type ServingMessage } from './main';

export interface EmbeddedClickHouseOptions {
  /** The engine's data folder, created when missing. */
  readonly path: string;
  /** The engine's memory budget (`ChdbEngine.open`). */
  readonly memoryBytes: number;
  readonly logger: Pick<LoggerService, 'log' | 'warn' | 'error'>;
}

/** The standalone shape's event store: a ClickHouse engine in a process of its own, kept running. */
export interface EmbeddedClickHouse {
  /** The URL to give `@clickhouse/client`, credentials included. */
  readonly url: string;
  /** Stops the engine once its running statement is done (killed after `STOP_MS`); no restart after this. */
  stop(): Promise<void>;
}

const MAIN = join(__dirname, 'main.js');
/** A start that does not serve within this fails (the engine loads its tables first). */
const START_MS = 120_000;
/** After a crash of Guidepost, its engine process stops within 2 s; a start retries that long and more. */
const FOLDER_RELEASE_MS = 15_000;
const STOP_MS = 30_000;
const RESTART_BACKOFF_MS = { first: 1_000, max: 30_000 };
/** A process that served this long before it died counts as failing for the first time: restarted after 1 s again. */
const HEALTHY_RUN_MS = 60_000;
const CHRT = ['/usr/bin/chrt', '/bin/chrt'].find((path) => existsSync(path));

/**
 * How the engine process yields the CPU to Guidepost's: in order of preference, an idle CPU group
 * (measured at 10 M events: tracking 3.2 % slower while funnels ran back to back, bench/results/2026-11-25.md),
 * else the `SCHED_IDLE` policy for every thread with its session's autogroup at nice 19 (10.7 % at
 * 1 M), else nothing (37 %: the queries take the event loop's time).
 */
type CpuPlacement =
  | { readonly kind: 'idle-group'; readonly group: IdleCpuGroup }
  | { readonly kind: 'sched-idle'; readonly reason: string }
  | { readonly kind: 'shared'; readonly reason: string };

/**
 * Starts the ClickHouse engine (chdb) behind its HTTP front (`main.ts`) as a child process, and keeps
 * it running: a process that dies is started again on the same port (1 s, then doubling to 30 s
 * between attempts), and meanwhile every statement fails as against a server that is down, so
 * accepted events wait in the outbox. The process is in a session of its own, so a Ctrl-C reaches
 * Guidepost alone, which stops it after the application (`stop`); it stops by itself when Guidepost
 * dies. Only the password generated here opens its port.
 */
export async function startEmbeddedClickHouse(options: EmbeddedClickHouseOptions): Promise<EmbeddedClickHouse> {
  const supervisor = new EngineSupervisor(options, cpuPlacement(options.path), randomBytes(24).toString('base64url'));
  await supervisor.start();
  return supervisor;
}

function cpuPlacement(path: string): CpuPlacement {
  // Named after the data folder, which one engine at a time may hold: a start after a crash finds the group again.
  const group = IdleCpuGroup.make(`guidepost-event-store-${createHash('sha256').update(resolve(path)).digest('hex').slice(0, 12)}`);
  if (group.ok) return { kind: 'idle-group', group: group.value };
  if (CHRT !== undefined && spawnSync(CHRT, ['--idle', '0', 'true']).status === 0) return { kind: 'sched-idle', reason: group.reason };
  return { kind: 'shared', reason: `${group.reason}, and \`chrt --idle\` (util-linux) is not installed or not allowed` };
}

class EngineSupervisor implements EmbeddedClickHouse {
  private child: ChildProcess | undefined;
  private port = 0;
  private stopping = false;
  private restartDelayMs = RESTART_BACKOFF_MS.first;
  private restartTimer: NodeJS.Timeout | undefined;
  private restarting: Promise<void> | undefined;

  constructor(
    private readonly options: EmbeddedClickHouseOptions,
    private readonly cpu: CpuPlacement,
    private readonly password: string,
  ) {}

  get url(): string {
    return `http://default:${this.password}@127.0.0.1:${this.port}`;
  }

  private get pid(): number {
    return this.child?.pid ?? 0;
  }

  /** How the engine process is kept from taking ingestion's CPU, for the log. */
  private get placement(): string {
    switch (this.cpu.kind) {
      case 'idle-group':
        return `in the idle CPU group ${this.cpu.group.path}`;
      case 'sched-idle':
        return `at SCHED_IDLE, autogroup nice 19 (no idle CPU group: ${this.cpu.reason})`;
      case 'shared':
        return `sharing the CPU with Guidepost (${this.cpu.reason}): analytics queries will slow tracking`;
    }
  }

  /** The first start: retried while the data folder may still be held by the engine of a Guidepost that crashed. */
  async start(): Promise<void> {
    const deadline = Date.now() + FOLDER_RELEASE_MS;
    for (;;) {
      try {
        await this.spawnEngine();
        const line = `event store engine (pid ${this.pid}) serving ${this.options.path} on 127.0.0.1:${this.port}, ${this.placement}`;
        if (this.cpu.kind === 'shared') this.options.logger.warn(line);
        else this.options.logger.log(line);
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          this.removeCpuGroup();
          throw error;
        }
        await sleep(500);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    await this.restarting;
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
      await exited;
      clearTimeout(killer);
    }
    this.removeCpuGroup();
  }

  private removeCpuGroup(): void {
    if (this.cpu.kind === 'idle-group') this.cpu.group.remove();
  }

  private async spawnEngine(): Promise<void> {
    const child = this.launch();
    try {
      this.port = await this.servingPort(child);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    this.child = child;
    const startedAt = Date.now();
    child.once('exit', (code, signal) => this.onExit(startedAt, code, signal));
  }

  /** The port the engine process says it serves on, or why it did not get there. */
  private servingPort(child: ChildProcess): Promise<number> {
    const stderr = this.forwardStderr(child);
    return new Promise<number>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        child.off('message', onMessage).off('close', onClose).off('error', onError);
        outcome();
      };
      const onMessage = (message: ServingMessage) => settle(() => resolve(Number(new URL(message.serving).port)));
      // 'close' rather than 'exit': its last line of stderr has been read by then.
      const onClose = (code: number | null, signal: NodeJS.Signals | null) =>
        settle(() =>
          reject(
            new Error(
              `the event store engine stopped before serving (${signal ?? `exit code ${String(code)}`}): ${stderr.last || 'no message'}`,
            ),
          ),
        );
      const onError = (error: Error) => settle(() => reject(new Error(`the event store engine could not be started: ${error.message}`)));
      const timer = setTimeout(
        () => settle(() => reject(new Error(`the event store engine did not serve within ${START_MS / 1000} s`))),
        START_MS,
      );
      child.on('message', onMessage).on('close', onClose).on('error', onError);
    });
  }

  private launch(): ChildProcess {
    const engine = [
      process.execPath,
      MAIN,
      '--path',
      this.options.path,
      '--host',
      '127.0.0.1',
      '--port',
      String(this.port),
      '--memory-bytes',
      String(this.options.memoryBytes),
    ];
    const [command, ...args] = this.cpu.kind === 'sched-idle' ? [CHRT!, '--idle', '0', ...engine] : engine;
    const child = spawn(command, args, {
      // A session of its own: an autogroup of its own, and no Ctrl-C from the terminal.
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, [PASSWORD_VARIABLE]: this.password },
    });
    // Without a listener, an 'error' (a failed kill, a message that could not be sent) would end Guidepost.
    child.on('error', (error) => {
      this.options.logger.error(`event store engine: ${error.message}`);
    });
    if (child.pid !== undefined) this.place(child.pid);
    return child;
  }

  /** Into the idle CPU group, or its session's autogroup lowered; a process that cannot be placed still serves. */
  private place(pid: number): void {
    try {
      if (this.cpu.kind === 'idle-group') this.cpu.group.add(pid);
      if (this.cpu.kind === 'sched-idle') lowerAutogroup(pid);
    } catch (error) {
      this.options.logger.warn(`event store engine (pid ${pid}) not placed ${this.placement}: ${(error as Error).message}`);
    }
  }

  /** The engine's own lines (failed statements, its errors) in Guidepost's log; keeps the last for a failed start. */
  private forwardStderr(child: ChildProcess): { last: string } {
    const seen = { last: '' };
    createInterface({ input: child.stderr! }).on('line', (line) => {
      seen.last = line;
      this.options.logger.warn(`event store engine: ${line}`);
    });
    return seen;
  }

  private onExit(startedAt: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping) return;
    if (Date.now() - startedAt >= HEALTHY_RUN_MS) this.restartDelayMs = RESTART_BACKOFF_MS.first;
    this.options.logger.error(
      `event store engine (pid ${this.child?.pid}) stopped (${signal ?? `exit code ${String(code)}`}); restarting in ${this.restartDelayMs / 1000} s, ` +
        'events wait in the outbox meanwhile',
    );
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    this.restartTimer = setTimeout(() => {
      this.restarting = this.restart();
    }, this.restartDelayMs);
    this.restartDelayMs = Math.min(this.restartDelayMs * 2, RESTART_BACKOFF_MS.max);
  }

  private async restart(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.spawnEngine();
      this.options.logger.log(`event store engine restarted (pid ${this.pid})`);
    } catch (error) {
      this.options.logger.error(
        `event store engine did not restart: ${(error as Error).message}; trying again in ${this.restartDelayMs / 1000} s`,
      );
      this.scheduleRestart();
    }
  }
}

/** Nice 19 for the session's autogroup, which the kernel weighs against Guidepost's; allowed for one's own processes. */
function lowerAutogroup(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, '19');
  } catch {
    // No autogroups in this kernel (CONFIG_SCHED_AUTOGROUP off): SCHED_IDLE alone then.
  }
}
