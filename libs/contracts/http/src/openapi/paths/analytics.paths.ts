import {
  ANALYTICS_HEADERS,
  ANALYTICS_QUERY_EXAMPLES,
  ANALYTICS_DOWNLOAD_LINK_SECONDS,
  AnalyticsExportAcknowledgementSchema,
  AnalyticsExportStatusSchema,
  AnalyticsQuerySchema,
  AnalyticsRowSchema,
} from '../../schemas/analytics.schema';
import { ACCOUNT_PATH, JSON_TYPE, listResponse, objectResponse, operation, type PathItems, problem } from '../openapi-builders';
import { ref, type JsonObject } from '../schema-components';

/** Analytics queries over the account's events and their exports (owned by the ingestion service). */

const integerHeader = (description: string): JsonObject => ({ description, schema: { type: 'integer', minimum: 0 } });

const CONCURRENCY_HEADERS: JsonObject = {
  [ANALYTICS_HEADERS.concurrencyLimit]: integerHeader(
    'Analytics queries the account may run at once (`GUIDEPOST_ANALYTICS_CONCURRENT_QUERIES`, 2 by default)',
  ),
  [ANALYTICS_HEADERS.concurrencyUsed]: integerHeader("The account's analytics queries running, this one included"),
};

/** On the export routes the same headers count job slots, as clients of the real API read them there. */
const JOB_SLOT_HEADERS: JsonObject = {
  [ANALYTICS_HEADERS.concurrencyLimit]: integerHeader(
    'Imports and exports (analytics exports included) the account may have in progress at once (`GUIDEPOST_BULK_JOBS_PER_ACCOUNT`)',
  ),
  [ANALYTICS_HEADERS.concurrencyUsed]: integerHeader("The account's imports and exports in progress, once this request was served"),
};

/** `response` with the job slot headers beside its own. */
function withJobSlots(response: JsonObject): JsonObject {
  return { ...response, headers: { ...(response['headers'] as JsonObject), ...JOB_SLOT_HEADERS } };
}

const QUERY_SPEC =
  'The spec: `metrics` with `dimensions` answer aggregate rows, one object per combination of dimension values with one ' +
  'number per metric, ordered by the time buckets (oldest first), then the first metric (largest first), then the other ' +
  'dimensions; `columns` answer raw event rows, oldest first. `conditions` take the grammar of `POST /export/events` ' +
  '(a condition on an event name no event has matches nothing); the window is `[start_time, end_time)`, RFC 3339 with ' +
  'seconds. Every 400 names the offending field: `metrics[1]`, `dimensions[0]`, `columns[2]`, `conditions[0][1]`, ' +
  '`start_time`, `end_time`.';

const BUDGET =
  'Each query runs in the event store within a budget per query, set as ClickHouse settings: ' +
  '`max_execution_time` (`GUIDEPOST_ANALYTICS_MAX_EXECUTION_SECONDS`, 10 s by default) and `max_memory_usage` ' +
  '(`GUIDEPOST_ANALYTICS_MAX_MEMORY_BYTES`, 1 GiB). A query over its memory budget is answered 400 `query: needs more ' +
  'than the memory budget...`: narrow the window, add conditions or drop dimensions. A query stopped by its time budget ' +
  'is answered 503 `query: did not finish within the time budget...` with `Retry-After` (the budget, in seconds): the ' +
  'time counts on the clock, and tracking comes first on a busy store, so the same query may pass later; one that ' +
  'never does needs narrowing too.';

const examples = (): JsonObject => Object.fromEntries(Object.entries(ANALYTICS_QUERY_EXAMPLES).map(([name, example]) => [name, example]));

function specBody(description: string): JsonObject {
  return { required: true, description, content: { [JSON_TYPE]: { schema: ref(AnalyticsQuerySchema), examples: examples() } } };
}

export function analyticsPaths(): PathItems {
  const query = operation({
    operationId: 'queryAnalytics',
    tag: 'Analytics',
    summary: 'Query analytics',
    description:
      `${QUERY_SPEC}\n\nThe answer holds at most \`limit\` rows and never more than the server's row limit ` +
      '(`GUIDEPOST_ANALYTICS_MAX_ROWS`, 10,000 by default); a clamped answer carries `X-Rows-Truncated: true`. ' +
      `${BUDGET} An account runs at most \`X-Concurrency-Limit\` queries at once (per ingestion process); one more is ` +
      'answered 429 with `Retry-After`. Every answer carries `X-Concurrency-Limit` and `X-Concurrency-Used`. For ' +
      'results beyond the row limit, run the same spec as an export.',
    requestBody: specBody('The query spec (JSON only)'),
    responses: { 200: rowsResponse() },
    errors: [400, 413, 415],
  });
  return {
    [`${ACCOUNT_PATH}/analytics/query`]: { post: withConcurrencyOn429(query) },
    [`${ACCOUNT_PATH}/analytics/exports`]: {
      post: operation({
        operationId: 'exportAnalytics',
        tag: 'Analytics',
        summary: 'Export analytics',
        description:
          `Runs a query spec as an offline job, for results beyond the row limit of a query. ${QUERY_SPEC} The spec is ` +
          'validated before the 202 (the same 400s as the query). The result is one JSON array of rows, at most `limit` ' +
          'and never more than `GUIDEPOST_ANALYTICS_EXPORT_MAX_ROWS` (1,000,000 by default). The 202 says `queued`; poll its `status_url` ' +
          '(`GET /analytics/exports/{job_id}`) until `done` or `failed`. ' +
          'An account may have as many imports and exports in progress as `GUIDEPOST_BULK_JOBS_PER_ACCOUNT` allows.',
        requestBody: specBody('The query spec (JSON only)'),
        responses: {
          202: withJobSlots(
            objectResponse(
              'Accepted; the export runs offline. The job is created before this answer, so `status_url` answers at once.',
              AnalyticsExportAcknowledgementSchema,
            ),
          ),
        },
        errors: [400, 413, 415],
      }),
    },
    [`${ACCOUNT_PATH}/analytics/exports/{job_id}`]: {
      get: operation({
        operationId: 'getAnalyticsExport',
        tag: 'Analytics',
        summary: 'Get an analytics export',
        description:
          'The state of an analytics export, as the official CLI reads it: `running`, then `done` with `download_url` (the ' +
          `JSON result, downloadable without credentials for ${ANALYTICS_DOWNLOAD_LINK_SECONDS} seconds: each call answers a ` +
          'fresh link), `expires_at`, `rows` and `truncated`, or `failed` with `failure_reason`; `done` and `failed` are ' +
          'final. A job of the account that is not an analytics export, or no job, is 404. The job is also listed under ' +
          '`/jobs` (name `Export Analytics`, `IN_PROGRESS`, `COMPLETED` or `FAILED`, with a link of a week).',
        pathParameters: ['job_id'],
        responses: { 200: withJobSlots(objectResponse('The export', AnalyticsExportStatusSchema)) },
        errors: [400, 404],
      }),
    },
  };
}

/** The query's 429 is also the account's analytics concurrency being used up: its answer carries the concurrency headers too. */
function withConcurrencyOn429(query: JsonObject): JsonObject {
  const responses = query['responses'] as JsonObject;
  const throttled = problem(
    'The account sent more requests than its rate limit allows, or already runs `X-Concurrency-Limit` analytics queries, ' +
      'or authentication failed too often from this client address or with this API key. ' +
      'Wait `Retry-After` seconds (an integer) and retry.',
    { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...CONCURRENCY_HEADERS },
  );
  return { ...query, responses: { ...responses, 429: throttled } };
}

/** 200 with the rows (JSON, or CSV under `Accept: text/csv`), the concurrency and truncation headers, and example rows. */
function rowsResponse(): JsonObject {
  const response = listResponse('The rows', AnalyticsRowSchema, {
    columns: [],
    note: 'The columns are the fields of the rows: the dimensions then the metrics, or the columns asked for; `attributes` is JSON text in one cell.',
  });
  const content = response['content'] as Record<string, JsonObject>;
  return {
    ...response,
    headers: {
      ...(response['headers'] as JsonObject),
      ...CONCURRENCY_HEADERS,
      [ANALYTICS_HEADERS.rowsTruncated]: {
        description: '`true` when the rows were clamped to the row limit; absent otherwise',
        schema: { type: 'string', enum: ['true'] },
      },
    },
    content: {
      ...content,
      [JSON_TYPE]: {
        ...content[JSON_TYPE],
        examples: {
          flowFunnel: {
            summary: 'Rows of the flow funnel',
            value: [
              { flow_id: 'onboarding', name: 'appcues:flow_started', events: 1520, users: 1402 },
              { flow_id: 'onboarding', name: 'appcues:flow_completed', events: 877, users: 850 },
            ],
          },
          dailyActiveUsers: {
            summary: 'Rows of daily active users',
            value: [
              { day: '2026-11-01', users: 312 },
              { day: '2026-11-02', users: 298 },
            ],
          },
        },
      },
    },
  };
}
