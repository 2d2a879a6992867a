import { Type } from '@sinclair/typebox';
import { defineTopic } from './topic';

/** Names of job events; a job's status is the fold of these (see the ingestion service's job registry). */
export const JobEventName = {
  Ingesting: 'Ingesting',
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
