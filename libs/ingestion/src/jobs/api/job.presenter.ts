import type { JobDetail, JobEvent, JobSummary } from '@guidepost/contracts-http';
import type { JobEventEntity } from '../data-access/job-event.entity';
import type { JobEntity } from '../data-access/job.entity';

/** The public shapes of jobs. `jobUrl` is absolute: the caller knows the public base URL. */
export function toJobSummary(job: JobEntity, jobUrl: string): JobSummary {
  return {
    id: job.id,
    name: job.name,
    // Observed format: UTC without a zone suffix, e.g. `2026-11-21T16:15:50.123`.
    started_at: job.startedAt.toISOString().slice(0, -1),
    status: job.status,
    url: jobUrl,
  };
}

export function toJobDetail(job: JobEntity, events: readonly JobEventEntity[], jobUrl: string): JobDetail {
  return { ...toJobSummary(job, jobUrl), events: events.map(toJobEvent) };
}

function toJobEvent(event: JobEventEntity): JobEvent {
  return { name: event.name, timestamp: event.timestamp.toISOString(), attributes: event.attributes };
}
