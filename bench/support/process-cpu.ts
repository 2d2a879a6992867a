import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { descendantsOf, statFields, type NamedProcess } from './process-tree';

/** CPU time a named process spent, split into its own and its child processes'. */
export interface ProcessCpu {
  readonly process: NamedProcess;
  /** The process itself, every thread (utime + stime of /proc/<pid>/stat). */
  readonly ownMs: number;
  /**
   * Its child processes (the PostgreSQL backends below a postmaster or an embedded PostgreSQL): the
   * live ones' utime + stime plus the reaped ones' (cutime + cstime of the parent).
   */
  readonly childrenMs: number;
}

/** Clock ticks per second, the unit of the CPU fields of /proc/<pid>/stat (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = clockTicksPerSecond();
// Fields of /proc/<pid>/stat (proc(5)), counted from 1; statFields starts at field 3.
const UTIME = 14 - 3;
const STIME = 15 - 3;
const CUTIME = 16 - 3;
const CSTIME = 17 - 3;

/** The CPU time of each process so far; `cpuSince(before)` gives what each spent since. */
export function cpuNow(processes: readonly NamedProcess[]): ProcessCpu[] {
  return processes.map((process) => {
    const { name, pid } = process;
    const own = statFields(pid);
    if (own === undefined) throw new Error(`${name} (pid ${pid}) is not running`);
    const reapedChildren = ticks(own, CUTIME) + ticks(own, CSTIME);
    const liveChildren = descendantsOf(pid).reduce((sum, child) => {
      const fields = statFields(child);
      return fields === undefined ? sum : sum + ticks(fields, UTIME) + ticks(fields, STIME);
    }, 0);
    return { process, ownMs: toMs(ticks(own, UTIME) + ticks(own, STIME)), childrenMs: toMs(reapedChildren + liveChildren) };
  });
}

/**
 * What each process spent between `before` and now. A child that lived through `before` and was
 * reaped since counts its whole life (the kernel keeps no earlier reading): a slight overcount.
 */
export function cpuSince(before: readonly ProcessCpu[], processes: readonly NamedProcess[]): ProcessCpu[] {
  const after = cpuNow(processes);
  return after.map((now, index) => ({
    process: now.process,
    ownMs: now.ownMs - before[index].ownMs,
    childrenMs: Math.max(0, now.childrenMs - before[index].childrenMs),
  }));
}

/**
 * The machine's idle CPU time so far (idle + iowait of every core, the first line of /proc/stat):
 * `machineIdleMs() - before` is what no process used, in ms.
 */
export function machineIdleMs(): number {
  // "cpu  user nice system idle iowait irq softirq ...", in clock ticks.
  const [, , , , idle, iowait] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
  return toMs(Number(idle) + Number(iowait));
}

function ticks(fields: readonly string[], index: number): number {
  return Number(fields[index]);
}

function toMs(clockTicks: number): number {
  return (clockTicks * 1000) / TICKS_PER_SECOND;
}

function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    // Linux has used 100 on every common architecture for decades.
    return 100;
  }
}
