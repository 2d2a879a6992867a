import { Type, type Static } from '@sinclair/typebox';
import { LinkBaseUrlField } from './link-base-url';
import { defineTopic } from './topic';

export const ImportKind = { Profiles: 'profiles', Groups: 'groups', Events: 'events' } as const;
export type ImportKind = (typeof ImportKind)[keyof typeof ImportKind];

/**
 * A bulk import whose upload is staged durably in the blob store (before its 202 was sent). The
 * import worker streams the staged file, validates it row by row and publishes the valid rows in
 * batches; the job completes when the whole file has been read.
 */
export const ImportStaged = defineTopic(
  'guidepost.ingestion.import-staged.v1',
  'job id',
  Type.Object({
    accountId: Type.String({ minLength: 1 }),
    jobId: Type.String({ minLength: 1 }),
    kind: Type.Union(Object.values(ImportKind).map((kind) => Type.Literal(kind))),
    format: Type.Union([Type.Literal('ndjson'), Type.Literal('csv')]),
    blobKey: Type.String({ minLength: 1 }),
    bytes: Type.Integer({ minimum: 0 }),
    stagedAt: Type.String({ format: 'date-time' }),
    linkBaseUrl: LinkBaseUrlField,
  }),
);

export const ProfileRowSchema = Type.Object({
  /** The user id (user profiles) or group id (group profiles). */
  id: Type.String({ minLength: 1 }),
  properties: Type.Record(Type.String(), Type.Unknown()),
  /** Line of the row in the uploaded file, so the profile service can name it in its own records. */
  line: Type.Integer({ minimum: 1 }),
});
export type ProfileRow = Static<typeof ProfileRowSchema>;

/**
 * A batch of valid rows of a profile or group import, for the profile service to merge into its
 * profiles (subject to the property filtering rules). Message ids are deterministic (job id and batch
 * index), so a worker restarted after a crash re-emits nothing new.
 */
export const ProfileRowsImported = defineTopic(
  'guidepost.ingestion.profile-rows-imported.v1',
  'job id',
  Type.Object({
    accountId: Type.String({ minLength: 1 }),
    jobId: Type.String({ minLength: 1 }),
    profileKind: Type.Union([Type.Literal('user'), Type.Literal('group')]),
    rows: Type.Array(ProfileRowSchema, { minItems: 1 }),
    importedAt: Type.String({ format: 'date-time' }),
  }),
);

/**
 * An accepted `POST /export/events`, already validated (conditions included). The export worker
 * streams the matching events from the event store into the blob store.
 */
export const EventExportRequested = defineTopic(
  'guidepost.ingestion.event-export-requested.v1',
  'job id',
  Type.Object({
    accountId: Type.String({ minLength: 1 }),
    jobId: Type.String({ minLength: 1 }),
    format: Type.Union([Type.Literal('csv'), Type.Literal('json')]),
    /** The request's condition list as sent (validated against the grammar before acceptance). */
    conditions: Type.Array(Type.Unknown()),
    startTime: Type.String({ format: 'date-time' }),
    endTime: Type.Optional(Type.String({ format: 'date-time' })),
    /** Offset of the rendered timestamps, in minutes east of UTC. */
    timeZoneMinutes: Type.Integer(),
    limit: Type.Integer({ minimum: 1 }),
    offset: Type.Integer({ minimum: 0 }),
    emails: Type.Array(Type.String()),
    requestedAt: Type.String({ format: 'date-time' }),
    linkBaseUrl: LinkBaseUrlField,
  }),
);

/**
 * An accepted `POST /analytics/exports`: the query spec as sent, already validated (conditions
 * included). The analytics export worker runs it and writes the rows into the blob store.
 */
export const AnalyticsExportRequested = defineTopic(
  'guidepost.ingestion.analytics-export-requested.v1',
  'job id',
  Type.Object({
    accountId: Type.String({ minLength: 1 }),
    jobId: Type.String({ minLength: 1 }),
    spec: Type.Unknown(),
    requestedAt: Type.String({ format: 'date-time' }),
    linkBaseUrl: LinkBaseUrlField,
  }),
);
