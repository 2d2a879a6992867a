import { Type, type Static } from '@sinclair/typebox';

/** Job statuses. A job starts `IN_PROGRESS` and moves to `COMPLETED` or `FAILED`, never back. */
export const JOB_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Most recent jobs `GET /jobs` lists per account, newest first. */
export const JOB_LIST_LIMIT = 1000;

export const JobSummarySchema = Type.Object(
  {
    id: Type.String({ description: 'Job identifier' }),
    name: Type.String({ description: 'Job name, for example `Import Profiles` or `Export Events`' }),
    started_at: Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}$',
      description: 'Creation time in UTC, ISO 8601 without a zone suffix (as observed), for example `2026-11-21T16:15:50.123`',
    }),
    status: Type.Union(
      JOB_STATUSES.map((status) => Type.Literal(status)),
      {
        description:
          'Fold of the job events: `IN_PROGRESS` until a `Completed` event (`COMPLETED`) or a `Failed` event (`FAILED`); ' +
          'a finished job never changes status again',
      },
    ),
    url: Type.String({ format: 'uri', description: 'Absolute URL of this job' }),
  },
  {
    $id: 'JobSummary',
    description: `An offline job. \`GET /jobs\` lists the account's ${JOB_LIST_LIMIT} most recent jobs, newest first.`,
  },
);
export type JobSummary = Static<typeof JobSummarySchema>;

export const JobEventSchema = Type.Object(
  {
    name: Type.String({ description: 'Job event name: `Ingesting`, `Completed` or `Failed`' }),
    timestamp: Type.String({ format: 'date-time', description: 'ISO 8601 time (UTC, `Z`)' }),
    attributes: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Free-form details. `Ingesting` of an import reports progress: `rows_read`, `bytes_read`, `bytes_total`, ' +
        '`percent`. `Completed` of an import carries `ingestions_completed`, `ingestions_failed`, `ingestions_filtered` ' +
        '(events dropped by the ingestion filtering rules), `requests_failed` (counts), `runtime_ms`, `failures_url` ' +
        '(every rejected row with its line, field and reason) and the first 100 of them as `failures`. `Completed` of an ' +
        'export carries `signed_s3_url` (link to the result file, valid one week), `expires_at` (ISO 8601 expiry of ' +
        'that link), `rows` (rows exported), `format` and `runtime_ms`. `Completed` of a profile deletion carries ' +
        '`deleted` (whether there was a profile) and `runtime_ms`. `Failed` carries `reason`.',
    }),
  },
  { $id: 'JobEvent', description: 'One step of a job, in the order the job registry recorded it' },
);
export type JobEvent = Static<typeof JobEventSchema>;

export const JobDetailSchema = Type.Composite(
  [
    JobSummarySchema,
    Type.Object({
      events: Type.Array(JobEventSchema, { description: 'The job events in order (JSON only; omitted in CSV)' }),
    }),
  ],
  { $id: 'JobDetail', description: 'A job with its events. The CSV form has the summary columns only.' },
);
export type JobDetail = Static<typeof JobDetailSchema>;
