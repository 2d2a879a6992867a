import {
  EventExportRequestSchema,
  EXPORT_MAX_OFFSET,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_VALUES,
  MAX_CONDITIONS,
  MAX_CONDITIONS_TEXT_LENGTH,
} from '../../schemas/exports.schema';
import { ID_MAX_LENGTH } from '../../schemas/input-limits';
import { EventImportRowSchema, GroupImportRowSchema, ProfileImportRowSchema } from '../../schemas/imports.schema';
import { JobDetailSchema, JobSummarySchema } from '../../schemas/jobs.schema';
import {
  ACCOUNT_PATH,
  asyncAcknowledgementResponse,
  commonHeaders,
  csvOf,
  jsonBody,
  listResponse,
  objectResponse,
  operation,
  recordsBody,
  type PathItems,
} from '../openapi-builders';

/** Bulk imports, the bulk event export and the offline jobs that carry them (owned by the ingestion service). */

const IMPORT_FORMATS =
  'The upload is stored as it is before the 202; nothing is parsed before (a file that cannot be read fails its job, ' +
  'not the request), and an upload holding nothing but blank lines is a 400. NDJSON: one JSON object per line. CSV: a ' +
  'header line naming the fields, then one row per line, RFC 4180 quoting (a quoted cell may span lines; `""` is a ' +
  'quote inside it; a stray quote costs its own row only: the row is cut at the end of the line where the quote ' +
  'opened). CSV cells are typed by one rule: the id columns (`user_id`, `userId`, `group_id`, `groupId`), `name`, ' +
  '`timestamp` and `context.url` stay text; in other columns an empty cell means the field is absent, `true` and ' +
  '`false` are booleans, a cell in JSON number syntax (`-12`, `3.5`, `1e3`; not `007`, which stays text) is a number, ' +
  'and anything else is text. An uploaded file is read as CSV or NDJSON by its name (`.csv`; `.ndjson`, `.jsonl`, ' +
  '`.json`), else by its part\'s content type, else by its first character (`{` or `"` means NDJSON).';

const IMPORT_OUTCOME =
  'Every row is judged on its own: a row that is not valid is refused and named, the others are imported. A row is ' +
  `refused for a field that breaks its schema (an id, \`user_id\` to \`groupId\`, has 1 to ${ID_MAX_LENGTH} characters), ` +
  'and also as a whole (`field` null) when its line is not JSON, when a CSV ' +
  'quote in it is broken, when it has another number of cells than the header, or when it is longer than 1 MB; and for ' +
  'a value that cannot be stored: text with a NUL character or a lone UTF-16 surrogate (`\\u0000`, `\\ud800`), a number ' +
  'beyond what JSON can write (`1e400`), arrays and objects nested more than 64 levels deep.\n\n' +
  'While the file is read the job reports `Ingesting` events (at most one per tenth of the file) with `rows_read`, ' +
  '`bytes_read`, `bytes_total` and `percent`. Once it is read, `Completed` carries `ingestions_completed` (rows ' +
  'imported), `ingestions_failed` (rows refused), `ingestions_filtered` (rows the ingestion filtering rules drop), ' +
  '`requests_failed` (batches of rows that could not be handed on to the stores, normally 0), `runtime_ms` (from the ' +
  '202), `failures_url` (the failures endpoint of the job: every refused row, to fix and send again only those) and ' +
  '`failures` (the first 100 of them), each `{line, field, reason}`. A file that cannot be read as its format at all ' +
  '(not UTF-8 text; a CSV header without the id column, or with a column named twice or not at all) ends the job with ' +
  '`Failed` and its `reason` instead. A job run again (after a restart) imports no row twice.';

function importOperation(operationId: string, what: string, rows: string, schema: Parameters<typeof recordsBody>[0]) {
  return operation({
    operationId,
    tag: 'Import',
    summary: `Import ${what}`,
    description: `${rows}\n\n${IMPORT_FORMATS}\n\n${IMPORT_OUTCOME}`,
    requestBody: recordsBody(
      schema,
      `The ${what}: newline-delimited JSON, CSV with a header line, or an uploaded file of either (not JSON: 415).`,
    ),
    responses: { 202: asyncAcknowledgementResponse('Accepted; the upload is stored durably and imported offline.') },
    errors: [400, 413, 415],
  });
}

/** One refused row of an import, as the failures endpoint and the `Completed` event list it. */
const IMPORT_FAILURE = {
  type: 'object',
  required: ['line', 'field', 'reason'],
  properties: {
    line: { type: 'integer', minimum: 1, description: 'Line of the uploaded file on which the row starts (blank lines counted)' },
    field: {
      type: ['string', 'null'],
      description: 'The field at fault (`timestamp`, `attributes.plan`, `user_id`), or null when the row as a whole is',
    },
    reason: { type: 'string', description: 'What is wrong, for example `is required (or userId)` or `is not valid JSON (...)`' },
  },
};

function importFailuresResponse() {
  return {
    description: 'The refused rows, in line order',
    headers: commonHeaders(),
    content: {
      'application/json': { schema: { type: 'array', items: IMPORT_FAILURE } },
      'text/csv': {
        schema: {
          type: 'string',
          description:
            'CSV (with `Accept: text/csv`): header line `line,field,reason`, then one row per failure; a null field is an empty cell.',
        },
      },
    },
  };
}

export function bulkPaths(): PathItems {
  return {
    [`${ACCOUNT_PATH}/import/profiles`]: {
      post: importOperation(
        'importProfiles',
        'user profiles',
        'Each row needs `user_id` or `userId` (a non-empty string; both may be given when they are equal); every other ' +
          'field is a property of the user profile, merged into it (the properties the ingestion filtering rules drop are ' +
          'left out by the profile service, as for a profile update).',
        ProfileImportRowSchema,
      ),
    },
    [`${ACCOUNT_PATH}/import/groups`]: {
      post: importOperation(
        'importGroups',
        'group profiles',
        'Each row needs `group_id` or `groupId` (a non-empty string; both may be given when they are equal); every other ' +
          'field is a property of the group profile, merged into it (subject to the ingestion filtering rules for group ' +
          'properties).',
        GroupImportRowSchema,
      ),
    },
    [`${ACCOUNT_PATH}/import/events`]: {
      post: importOperation(
        'importEvents',
        'events',
        'Each row needs one of `user_id`, `userId`, `group_id`, `groupId` (an event may belong to a group alone), `name` ' +
          'and `timestamp`: ISO 8601 with seconds and `Z` or an offset (`+HH:MM`, `-HH:MM`), stored as that instant in UTC ' +
          'with milliseconds (a timestamp without a zone, or outside the years 1900 to 2299 that the event store holds, is ' +
          'refused naming `timestamp`). `attributes` (object) and every other field are the ' +
          "event's attributes (`attributes` wins for a key given both ways); of `context`, `url` is kept. In CSV, " +
          '`attributes.<key>` columns fill `attributes` (so the CSV of an event export reads back) and `context.url` the ' +
          "context. Events whose name the account's ingestion filtering rules drop are counted in `ingestions_filtered`, " +
          'not stored. Each row is stored as the event `<job_id>:<line>`, so importing a row twice stores it once.',
        EventImportRowSchema,
      ),
    },
    [`${ACCOUNT_PATH}/export/events`]: {
      post: operation({
        operationId: 'exportEvents',
        tag: 'Export',
        summary: 'Export events',
        description:
          'Exports the events that match `conditions` with a timestamp from `start_time` (included) to `end_time` ' +
          '(excluded; without it, no upper bound), as the service held them when the request was accepted (events received ' +
          'later are left out, so pages of one range stay stable). At most 10 million events per request (the recommended ' +
          'range is under one month), in chronological order, `offset` of them skipped first. JSON exports are ' +
          'newline-delimited JSON, one object per line with `name`, `timestamp`, `user_id`, `id`, `attributes`; CSV exports ' +
          'have the columns `name`, `timestamp`, `user_id`, `id`, then `attributes` flattened into `attributes.<key>` columns ' +
          '(the union of keys seen, sorted). `id` is the event id fixed when the event was taken in: the same in every ' +
          'export, so a client can drop copies. Timestamps are rendered at `time_zone` (`Z` at 0).\n\n' +
          'Everything a client can get wrong is answered with 400 before the 202, naming the field or the condition by its ' +
          'position (`conditions[1][1]: operator ">" is not supported...`); an `end_time` before `start_time` is a 400 too, ' +
          `and so are an \`offset\` over ${EXPORT_MAX_OFFSET}, a \`time_zone\` outside its grammar (the one event history ` +
          `takes) and conditions over their limits (${MAX_CONDITIONS} conditions, conjunctions nested ${MAX_CONDITION_DEPTH} ` +
          `deep, ${MAX_CONDITION_VALUES} compared values, ${MAX_CONDITIONS_TEXT_LENGTH} characters of field names and ` +
          'values) or holding text no store keeps (NUL, a lone UTF-16 surrogate). What is accepted can be run. ' +
          "When done, the job's `Completed` event carries `signed_s3_url` (the download link, valid one week), " +
          "`expires_at` (ISO 8601 end of the link's validity), `rows` (events exported), `format` and `runtime_ms`, and the " +
          'link is mailed to every address of `email`. An export that cannot be written (after retries) ends the job with ' +
          'a `Failed` event whose `reason` says why.',
        requestBody: jsonBody(EventExportRequestSchema, 'What to export (JSON only)'),
        responses: { 202: asyncAcknowledgementResponse('Accepted; the export runs offline.') },
        errors: [400, 413, 415],
      }),
    },
    [`${ACCOUNT_PATH}/jobs`]: {
      get: operation({
        operationId: 'listJobs',
        tag: 'Jobs',
        summary: 'List jobs',
        description: 'The recent jobs of the account, newest first. Unknown query parameters are ignored.',
        responses: { 200: listResponse('The jobs', JobSummarySchema) },
      }),
    },
    [`${ACCOUNT_PATH}/jobs/{job_id}/failures`]: {
      get: operation({
        operationId: 'getImportFailures',
        tag: 'Jobs',
        summary: "List an import's refused rows",
        description:
          'Every row an import (profiles, groups, events) refused, in line order, with its line, the field at fault and ' +
          'the reason: fix those rows and send them again. Complete once the job is finished; while it runs, the failures ' +
          'of the rows read so far. A job of the account that is not an import has none (`[]`); a job the account does ' +
          'not have is 404. The `Completed` event of the job lists the first 100 and links here (`failures_url`).',
        pathParameters: ['job_id'],
        responses: { 200: importFailuresResponse() },
        errors: [400, 404],
      }),
    },
    [`${ACCOUNT_PATH}/jobs/{job_id}`]: {
      get: operation({
        operationId: 'getJob',
        tag: 'Jobs',
        summary: 'Get a job',
        description:
          'The job with its events. Its status is the fold of its events: `IN_PROGRESS` until `Completed` (`COMPLETED`) ' +
          'or `Failed` (`FAILED`), and never changes after that. A finished export carries its result link in the ' +
          '`Completed` event: `attributes.signed_s3_url` (valid one week), `expires_at` and the row count.',
        pathParameters: ['job_id'],
        responses: {
          200: objectResponse(
            'The job detail',
            JobDetailSchema,
            csvOf(JobDetailSchema, 'The `events` array is omitted in CSV.', ['events']),
          ),
        },
        errors: [400, 404],
      }),
    },
  };
}
