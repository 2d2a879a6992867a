import type { JobEventDraft } from '@guidepost/contracts-events';
import type { RowFailure } from './row-failure';

/** How many failures the `Completed` event lists itself; the failures endpoint has them all. */
export const INLINE_FAILURES = 100;
/** Progress is reported in steps of this many percent of the file, so a job has at most 11 `Ingesting` events. */
export const PROGRESS_STEP_PERCENT = 10;
/** And at most one per this many milliseconds (small files finish in a few steps at once). */
export const PROGRESS_INTERVAL_MS = 2_000;

/**
 * The running counts of one import: rows read, their outcomes, and the first failures (by line, which
 * is the order the file is read in). Rebuilt from the file on every run, so a restarted worker
 * reports the same figures.
 */
export class ImportTally {
  rowsRead = 0;
  bytesRead = 0;
  completed = 0;
  failed = 0;
  filtered = 0;
  /** Batches that could not be published (dead-lettered by the outbox relay). */
  requestsFailed = 0;
  readonly firstFailures: RowFailure[] = [];
  private reportedStep = -1;
  private reportedAt = Number.NEGATIVE_INFINITY;

  constructor(readonly bytesTotal: number) {}

  recordFailures(failures: readonly RowFailure[]): void {
    this.failed += failures.length;
    for (const failure of failures) {
      if (this.firstFailures.length >= INLINE_FAILURES) return;
      this.firstFailures.push(failure);
    }
  }

  get percent(): number {
    return this.bytesTotal === 0 ? 100 : Math.min(100, Math.floor((this.bytesRead / this.bytesTotal) * 100));
  }

  /**
   * The progress step to report now, or undefined: a step is reported once it is reached and the
   * last report is old enough. Steps make the event ids (`<job>:Ingesting:<step>`), so a worker
   * restarted after a crash cannot report a step twice.
   */
  progressStepToReport(nowMs: number): number | undefined {
    const step = Math.floor(this.percent / PROGRESS_STEP_PERCENT);
    if (step <= this.reportedStep || nowMs - this.reportedAt < PROGRESS_INTERVAL_MS) return undefined;
    this.reportedStep = step;
    this.reportedAt = nowMs;
    return step;
  }
}

/** Progress of the import: how far into the file it is. */
export function ingestingEvent(tally: ImportTally, now: Date): JobEventDraft {
  return {
    name: 'Ingesting',
    timestamp: now.toISOString(),
    attributes: {
      rows_read: tally.rowsRead,
      bytes_read: tally.bytesRead,
      bytes_total: tally.bytesTotal,
      percent: tally.percent,
    },
  };
}

/** The whole file is read: the counters every ingestion job reports, plus where the failed rows are. */
export function importCompletedEvent(tally: ImportTally, stagedAt: Date, now: Date, failuresUrl: string): JobEventDraft {
  return { name: 'Completed', timestamp: now.toISOString(), attributes: outcomeAttributes(tally, stagedAt, now, failuresUrl) };
}

/**
 * The file could not be read as its format (a CSV header without the id column, text that is not
 * UTF-8, ...). Rows imported before the problem showed, if any, are counted.
 */
export function importFailedEvent(reason: string, tally: ImportTally, stagedAt: Date, now: Date, failuresUrl: string): JobEventDraft {
  return { name: 'Failed', timestamp: now.toISOString(), attributes: { reason, ...outcomeAttributes(tally, stagedAt, now, failuresUrl) } };
}

function outcomeAttributes(tally: ImportTally, stagedAt: Date, now: Date, failuresUrl: string): Record<string, unknown> {
  return {
    ingestions_completed: tally.completed,
    ingestions_failed: tally.failed,
    ingestions_filtered: tally.filtered,
    requests_failed: tally.requestsFailed,
    // Never negative, even if the clocks of two machines disagree a little.
    runtime_ms: Math.max(0, now.getTime() - stagedAt.getTime()),
    failures_url: failuresUrl,
    failures: tally.firstFailures,
  };
}
