import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What was asked of the machine, or why it could not be done. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** Where the kernel's CPU controller is mounted: cgroup v1's own hierarchy, or the unified (v2) one when it holds `cpu`. */
interface CpuController {
  readonly mount: string;
  /** How /proc/<pid>/cgroup names this hierarchy's line (`cpu` among v1's controllers, or v2's empty list). */
  readonly matches: (controllers: string) => boolean;
}

const V1: CpuController = { mount: '/sys/fs/cgroup/cpu', matches: (controllers) => controllers.split(',').includes('cpu') };
const V2: CpuController = { mount: '/sys/fs/cgroup', matches: (controllers) => controllers === '' };

/**
 * A CPU control group marked idle (`cpu.idle = 1`, Linux 5.15 and later): the kernel gives its
 * processes only CPU time no other task wants and preempts them as soon as one wakes. It is what keeps
 * a store's queries from slowing ingestion on a shared machine (systemd's `CPUWeight=idle`,
 * docs/deployment.md); a nice value cannot, since each session's processes are weighed as one group
 * (autogroup) whatever their threads' nice values. Needs a writable CPU controller (root, or a
 * delegated cgroup).
 */
export class IdleCpuGroup {
  private constructor(
    private readonly controller: CpuController,
    readonly path: string,
  ) {}

  /**
   * Makes the group `name` inside this process's own CPU group (so that the limits of the machine's
   * container or service still apply to it), or says why this machine cannot.
   */
  static make(name: string): Outcome<IdleCpuGroup> {
    const controller = [V1, V2].find(canMakeIdleGroups);
    if (controller === undefined) return { ok: false, reason: 'no CPU controller with cpu.idle is writable here' };
    const own = groupOf(process.pid, controller);
    if (own === undefined) return { ok: false, reason: 'the CPU group of this process is unknown' };
    const path = join(controller.mount, own, name);
    try {
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, 'cpu.idle'), '1');
    } catch (error) {
      removeGroup(path);
      return { ok: false, reason: `the idle CPU group could not be made: ${(error as Error).message}` };
    }
    return { ok: true, value: new IdleCpuGroup(controller, path) };
  }

  /** Moves every thread of `pid` into the group; the threads it starts later are born there. */
  add(pid: number): void {
    writeFileSync(join(this.path, 'cgroup.procs'), String(pid));
  }

  /** The group of `pid` in this group's hierarchy. */
  groupOf(pid: number): string | undefined {
    return groupOf(pid, this.controller);
  }

  /** Moves `pid` back to the group it was in before (`groupOf`, read before `add`). */
  restore(pid: number, home: string): void {
    writeFileSync(join(this.controller.mount, home, 'cgroup.procs'), String(pid));
  }

  /** Removes the group once no process is left in it; one still holding a process is left for the operator to see. */
  remove(): void {
    removeGroup(this.path);
  }
}

/**
 * Runs `work` with every thread of `pid` in an idle CPU group, then moves the process back to its own
 * group. Without a writable CPU controller the outcome says why and `work` does not run.
 */
export async function inIdleCpuGroup<T>(pid: number, work: () => Promise<T>): Promise<Outcome<T>> {
  const made = IdleCpuGroup.make(`guidepost-idle-${pid}`);
  if (!made.ok) return made;
  const group = made.value;
  const home = group.groupOf(pid);
  try {
    if (home === undefined) return { ok: false, reason: `the CPU group of pid ${pid} is unknown` };
    group.add(pid);
    try {
      return { ok: true, value: await work() };
    } finally {
      group.restore(pid, home);
    }
  } finally {
    group.remove();
  }
}

function canMakeIdleGroups(controller: CpuController): boolean {
  if (controller === V2) {
    // Under v2 a child group has a cpu.idle file only when its parent hands the cpu controller down.
    const own = groupOf(process.pid, controller);
    const subtree = own === undefined ? '' : readOrEmpty(join(controller.mount, own, 'cgroup.subtree_control'));
    if (!subtree.split(/\s+/).includes('cpu')) return false;
  } else if (!existsSync(join(controller.mount, 'cpu.idle'))) {
    return false;
  }
  return existsSync(join(controller.mount, 'cgroup.procs'));
}

/** The group of `pid` in the controller's hierarchy, as /proc/<pid>/cgroup names it (`id:controllers:path` lines). */
function groupOf(pid: number, controller: CpuController): string | undefined {
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
    // Still holding a process, or never made.
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
