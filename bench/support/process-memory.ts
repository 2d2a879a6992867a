import { writeFileSync } from 'node:fs';
import { commandOf, descendantsOf, readProc, type NamedProcess } from './process-tree';

/** The highest resident memory seen for a process tree while a watch ran. */
export interface MemoryPeaks {
  /** The watched process itself: the larger of the sampled VmRSS and the kernel's VmHWM. */
  readonly rootBytes: number;
  /**
   * The watched process's anonymous memory at its highest sample (RssAnon: heaps, buffers), without
   * the file-backed pages of mapped code: the part of its RSS that grows with the work.
   */
  readonly rootAnonymousBytes: number;
  /** The largest of its descendants (the embedded PostgreSQL's processes), if it has any. */
  readonly largestDescendant?: { readonly command: string; readonly bytes: number };
}

const SAMPLE_INTERVAL_MS = 100;
/** Writing 5 to clear_refs resets the process's VmHWM (peak RSS) to its current RSS (Linux >= 4.0). */
const RESET_PEAK = '5';

/** What one named process's memory was when a watch began, and its peaks during it. */
export interface WatchedMemory {
  readonly process: NamedProcess;
  readonly idle: MemoryNow;
  readonly peaks: MemoryPeaks;
}

/**
 * Runs `work` while watching the resident memory of each process and of every process below it. The
 * kernel's own peak (VmHWM, reset at the start) catches spikes between two samples of a watched
 * process; descendants come and go (PostgreSQL backends), so they are sampled every 100 ms.
 */
export async function measureMemory<T>(
  processes: readonly NamedProcess[],
  work: () => Promise<T>,
): Promise<{ result: T; watched: WatchedMemory[] }> {
  const idle = processes.map(({ pid }) => memoryNow(pid));
  const watches = processes.map(({ pid }) => new MemoryWatch(pid));
  try {
    const result = await work();
    return { result, watched: processes.map((process, index) => ({ process, idle: idle[index], peaks: watches[index].peaks() })) };
  } finally {
    for (const watch of watches) watch.stop();
  }
}

/** The resident memory of a process now, and its anonymous part. */
export interface MemoryNow {
  readonly residentBytes: number;
  readonly anonymousBytes: number;
}

function memoryNow(pid: number): MemoryNow {
  return { residentBytes: statusField(pid, 'VmRSS') ?? 0, anonymousBytes: statusField(pid, 'RssAnon') ?? 0 };
}

class MemoryWatch {
  private rootPeak = 0;
  private rootAnonymousPeak = 0;
  private readonly descendantPeaks = new Map<number, { command: string; bytes: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly rootPid: number) {
    writeFileSync(`/proc/${rootPid}/clear_refs`, RESET_PEAK);
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
  }

  peaks(): MemoryPeaks {
    this.sample();
    const rootBytes = Math.max(this.rootPeak, statusField(this.rootPid, 'VmHWM') ?? 0);
    const descendants = [...this.descendantPeaks.values()].sort((a, b) => b.bytes - a.bytes);
    return { rootBytes, rootAnonymousBytes: this.rootAnonymousPeak, largestDescendant: descendants[0] };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    this.rootPeak = Math.max(this.rootPeak, statusField(this.rootPid, 'VmRSS') ?? 0);
    this.rootAnonymousPeak = Math.max(this.rootAnonymousPeak, statusField(this.rootPid, 'RssAnon') ?? 0);
    for (const pid of descendantsOf(this.rootPid)) {
      const bytes = statusField(pid, 'VmRSS');
      const seen = this.descendantPeaks.get(pid);
      if (bytes !== undefined && (seen === undefined || bytes > seen.bytes)) {
        this.descendantPeaks.set(pid, { command: commandOf(pid), bytes });
      }
    }
  }
}

/** A `kB` field of /proc/<pid>/status in bytes; undefined once the process is gone. */
function statusField(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon'): number | undefined {
  const status = readProc(pid, 'status');
  const match = status === undefined ? null : new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}
