import { Type } from '@sinclair/typebox';
import { defineTopic, type PayloadOf, type Topic } from './topic';

/** Names of job events; a job's status is the fold of these (see the ingestion service's job registry). */
export const JobEventName = {
  Ingesting: 'Ingesting',
  /** An export's worker has started writing it (analytics exports; until then the export is queued). */
  Exporting: 'Exporting',
  Completed: 'Completed',
  Failed: 'Failed',
} as const;
export type JobEventName = (typeof JobEventName)[keyof typeof JobEventName];

/** Any service that runs a job reports its progress and outcome with this event. Owner: ingestion. */
export const JobEventRecorded = defineTopic(
  'guidepost.jobs.job-event-recorded.v1',
  'job id',
  Type.Object({
    jobId: Type.String({ minLength: 1 }),
    accountId: Type.String({ minLength: 1 }),
    name: Type.Union(Object.values(JobEventName).map((name) => Type.Literal(name))),
    timestamp: Type.String({ format: 'date-time' }),
    attributes: Type.Record(Type.String(), Type.Unknown()),
  }),
);

export type JobEventPayload = PayloadOf<typeof JobEventRecorded>;

/** A job event before it is addressed to a job (`emitJobEvent` adds the job and account ids). */
export type JobEventDraft = Omit<JobEventPayload, 'jobId' | 'accountId'>;

/** The job an event reports on. */
export interface JobRef {
  readonly jobId: string;
  readonly accountId: string;
}

/** What puts a message in the outbox with the caller's writes (a unit of work's transaction). */
export interface OutboxEmitter {
  emit<T extends Topic>(topic: T, key: string, payload: PayloadOf<T>, id?: string): void;
}

/**
 * Reports a job event through the outbox, the one way every service does. The message id is
 * deterministic, so a replayed step cannot report twice: `<job id>:<event name>` for the events a job
 * reports once (`Completed`, `Failed`, a membership change's `Ingesting`), `<job id>:<event
 * name>:<step>` for one that repeats (an import's `Ingesting` at each step of progress).
 */
export function emitJobEvent(outbox: OutboxEmitter, job: JobRef, event: JobEventDraft, step?: number): void {
  const messageId = step === undefined ? `${job.jobId}:${event.name}` : `${job.jobId}:${event.name}:${step}`;
  outbox.emit(JobEventRecorded, job.jobId, { jobId: job.jobId, accountId: job.accountId, ...event }, messageId);
}
