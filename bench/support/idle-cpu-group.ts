import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `inIdleCpuGroup` did: the work's result, or why the machine could not do it. */
export type IdleCpuOutcome<T> = { readonly ran: true; readonly result: T } | { readonly ran: false; readonly reason: string };

/** Where the kernel's CPU controller is mounted: cgroup v1's own hierarchy, or the unified (v2) one when it holds `cpu`. */
interface CpuController {
  readonly mount: string;
  /** How /proc/<pid>/cgroup names this hierarchy's line (`cpu` among v1's controllers, or v2's empty list). */
  readonly matches: (controllers: string) => boolean;
}

const V1: CpuController = { mount: '/sys/fs/cgroup/cpu', matches: (controllers) => controllers.split(',').includes('cpu') };
const V2: CpuController = { mount: '/sys/fs/cgroup', matches: (controllers) => controllers === '' };

/**
 * Runs `work` with every thread of `pid` in a CPU control group marked idle (`cpu.idle = 1`, Linux
 * 5.15 and later): the kernel gives the group only CPU time no other task wants and preempts it as
 * soon as one wakes. It is what an operator does to a store that shares a machine with ingestion
 * (systemd's `CPUWeight=idle`, docs/deployment.md); a nice value cannot do it, since each session's
 * processes are weighed as one group (autogroup) whatever their threads' nice values. The process is
 * moved back to its own group afterwards. Needs a writable CPU controller (root, or a delegated
 * cgroup); without one the outcome says why and `work` does not run.
 */
export async function inIdleCpuGroup<T>(pid: number, work: () => Promise<T>): Promise<IdleCpuOutcome<T>> {
  const controller = [V1, V2].find(canMakeIdleGroups);
  if (controller === undefined) return { ran: false, reason: 'no CPU controller with cpu.idle is writable here' };
  const home = cgroupOf(pid, controller);
  if (home === undefined) return { ran: false, reason: `the CPU group of pid ${pid} is unknown` };
  const group = join(controller.mount, `guidepost-bench-idle-${pid}`);
  try {
    mkdirSync(group, { recursive: true });
    writeFileSync(join(group, 'cpu.idle'), '1');
    writeFileSync(join(group, 'cgroup.procs'), String(pid));
  } catch (error) {
    removeGroup(group);
    return { ran: false, reason: `the idle CPU group could not be made: ${(error as Error).message}` };
  }
  try {
    return { ran: true, result: await work() };
  } finally {
    writeFileSync(join(controller.mount, home, 'cgroup.procs'), String(pid));
    removeGroup(group);
  }
}

function canMakeIdleGroups({ mount }: CpuController): boolean {
  if (mount === V2.mount) {
    // Under v2 a child group has a cpu.idle file only when the root hands the cpu controller down.
    const subtree = readOrEmpty(join(mount, 'cgroup.subtree_control'));
    if (!subtree.split(/\s+/).includes('cpu')) return false;
  } else if (!existsSync(join(mount, 'cpu.idle'))) {
    return false;
  }
  return existsSync(join(mount, 'cgroup.procs'));
}

/** The group's path within the controller's hierarchy, from /proc/<pid>/cgroup (`id:controllers:path` lines). */
function cgroupOf(pid: number, controller: CpuController): string | undefined {
  for (const line of readOrEmpty(`/proc/${pid}/cgroup`).split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path !== undefined && controller.matches(controllers)) return path;
  }
  return undefined;
}

function removeGroup(group: string): void {
  try {
    rmdirSync(group);
  } catch {
    // Still holding a process (it could not be moved back) or never made: left for the operator to see.
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
