import { JobEventName } from '@guidepost/contracts-events';
import type { JobStatus } from '@guidepost/contracts-http';

/** Every job starts here, at creation, before any event arrives. */
export const INITIAL_JOB_STATUS: JobStatus = 'IN_PROGRESS';

/**
 * A job's status is the left fold of its events with this reducer, starting from
 * `INITIAL_JOB_STATUS`. `Completed` and `Failed` finish a job; a finished job keeps its status for
 * good, so a late or repeated event (recorded all the same) can never reopen or flip it.
 */
export function jobStatusAfter(status: JobStatus, event: JobEventName): JobStatus {
  if (status !== 'IN_PROGRESS') return status;
  switch (event) {
    case JobEventName.Completed:
      return 'COMPLETED';
    case JobEventName.Failed:
      return 'FAILED';
    case JobEventName.Ingesting:
    case JobEventName.Exporting:
      return status;
  }
}
