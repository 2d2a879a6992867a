import { readdirSync, readFileSync } from 'node:fs';

/** A process the benchmark watches, by the name the report gives it. */
export interface NamedProcess {
  readonly name: string;
  readonly pid: number;
  /** One of the servers Guidepost uses (Kafka, PostgreSQL, ...), shared with anything else using them, rather than Guidepost's own. */
  readonly server?: boolean;
}

/** Every live process whose chain of parents reaches `rootPid` (one scan of /proc). */
export function descendantsOf(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const pending = [...(children.get(rootPid) ?? [])];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    found.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * The fields of /proc/<pid>/stat after the command in parentheses (which may hold spaces), so that
 * `statFields(pid)[0]` is field 3 (state) of proc(5); undefined once the process is gone.
 */
export function statFields(pid: number): string[] | undefined {
  const stat = readProc(pid, 'stat');
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The parent pid: field 4 of /proc/<pid>/stat. */
function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : Number(fields[1]);
}

export function commandOf(pid: number): string {
  return (readProc(pid, 'cmdline') ?? '').replaceAll('\0', ' ').trim().slice(0, 80);
}

/** A /proc file, or undefined when the process has exited meanwhile. */
export function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}
