import { EventExportRequestSchema } from '../../schemas/exports.schema';
import { EventImportRowSchema, GroupImportRowSchema, ProfileImportRowSchema } from '../../schemas/imports.schema';
import { JobDetailSchema, JobSummarySchema } from '../../schemas/jobs.schema';
import {
  ACCOUNT_PATH,
  asyncAcknowledgementResponse,
  csvOf,
  jsonBody,
  listResponse,
  objectResponse,
  operation,
  recordsBody,
  type PathItems,
} from '../openapi-builders';

/** Bulk imports, the bulk event export and the offline jobs that carry them (owned by the ingestion service). */

const IMPORT_OUTCOME =
  'Every row is judged on its own. When the job completes, its `Completed` event carries `ingestions_completed`, ' +
  '`ingestions_failed`, `requests_failed` and `runtime_ms`; failed rows are kept in the job with their line number, field ' +
  'and reason, so that only those rows need to be fixed and sent again. A retried job never imports a row twice.';

function importOperation(operationId: string, what: string, rows: string, schema: Parameters<typeof recordsBody>[0]) {
  return operation({
    operationId,
    tag: 'Import',
    summary: `Import ${what}`,
    description: `${rows} ${IMPORT_OUTCOME} Ingestion filtering rules apply to every row.`,
    requestBody: recordsBody(schema, `The ${what}: newline-delimited JSON, CSV with a header line, or an uploaded file of either.`),
    responses: { 202: asyncAcknowledgementResponse('Accepted; the upload is stored durably and imported offline.') },
    errors: [400, 413, 415],
  });
}

export function bulkPaths(): PathItems {
  return {
    [`${ACCOUNT_PATH}/import/profiles`]: {
      post: importOperation(
        'importProfiles',
        'user profiles',
        'Each row needs `user_id` or `userId`; every other field is a profile attribute.',
        ProfileImportRowSchema,
      ),
    },
    [`${ACCOUNT_PATH}/import/groups`]: {
      post: importOperation(
        'importGroups',
        'group profiles',
        'Each row needs `group_id` or `groupId`; every other field is a group profile attribute.',
        GroupImportRowSchema,
      ),
    },
    [`${ACCOUNT_PATH}/import/events`]: {
      post: importOperation(
        'importEvents',
        'events',
        'Each row needs one of `user_id`, `userId`, `group_id`, `groupId`, plus `name` and `timestamp` (ISO 8601); ' +
          '`attributes` (object) and `context` (object with `url`) are optional and any other field is an event attribute.',
        EventImportRowSchema,
      ),
    },
    [`${ACCOUNT_PATH}/export/events`]: {
      post: operation({
        operationId: 'exportEvents',
        tag: 'Export',
        summary: 'Export events',
        description:
          'Exports the events that match `conditions` within the time range, at most 10 million per request (the ' +
          'recommended range is under one month). JSON exports are newline-delimited JSON, one object per line with ' +
          '`name`, `timestamp`, `user_id`, `attributes`; CSV exports flatten `attributes` into `attributes.<key>` columns ' +
          '(the union of keys seen, sorted). When done, the `Completed` job event carries `signed_s3_url` (the link, valid ' +
          'one week), `expires_at` and the row count, and the link is mailed to `email`. A condition outside the grammar ' +
          'is answered with 400 naming it.',
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
        errors: [404],
      }),
    },
  };
}
