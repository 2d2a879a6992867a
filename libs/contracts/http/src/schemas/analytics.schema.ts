import { Type, type Static } from '@sinclair/typebox';
import { ExportConditionSchema, MAX_CONDITIONS } from './exports.schema';

/**
 * The analytics query spec (`POST /analytics/query`, `POST /analytics/exports`): aggregate rows
 * (`metrics` over `dimensions`) or raw event rows (`columns`), for the export's condition grammar,
 * within `[start_time, end_time)`.
 */

/** What each metric counts per combination of dimension values. */
export const ANALYTICS_METRICS = {
  events: 'number of events',
  users: 'number of distinct user ids (events of a group only are not counted)',
  groups: 'number of distinct group ids (events naming no group are not counted)',
} as const;
export type AnalyticsMetric = keyof typeof ANALYTICS_METRICS;

/** The share of started flows and experiences that were completed, per group. */
export const ANALYTICS_CONVERSION_METRIC = 'conversion';
export const ANALYTICS_CONVERSION_MEANING =
  'of the (user, flow) pairs of the group that started (`appcues:flow_started`, or `appcues:v2:experience_started` by ' +
  'experience), the share whose flow or experience the same user also completed in the group (`appcues:flow_completed`, ' +
  '`appcues:v2:experience_completed`): a number from 0 to 1, 0 when none started';

/**
 * The NPS metrics of one survey (a `flow_id` condition names it). Each is a rolling figure: over the
 * 30 days ending with the row's day (the `day` bucket, else the window's last day), that day included,
 * so the window's first day counts answers from before `start_time`.
 */
export const ANALYTICS_NPS_METRICS = {
  nps_computed_score:
    'round((promoters - detractors) / respondents * 100), a whole number from -100 to 100 (halves away from zero); 0 with no respondents',
  nps_promoters: "respondents whose latest score is 9 or 10 (each user's most recent `score` of the 30 days counts)",
  nps_neutrals: 'respondents whose latest score is 7 or 8',
  nps_detractors: 'respondents whose latest score is 0 to 6',
  nps_survey_started: 'number of `appcues:nps_survey_started` events',
  nps_scores_submitted: 'number of scores sent (`appcues:nps_score`, `appcues:nps_score_and_feedback` with a numeric `score` from 0 to 10)',
  nps_feedbacks_submitted:
    'number of written replies (`appcues:nps_feedback`, `appcues:nps_score_and_feedback` with a non-empty `feedback`)',
} as const;
export type AnalyticsNpsMetric = keyof typeof ANALYTICS_NPS_METRICS;

/** Metrics `<statistic>_<field>` over the numeric values of an attribute field or `attributes.<key>` (`avg_score`). */
export const ANALYTICS_STATISTICS = {
  avg: 'the mean',
  median: 'the median',
  p90: 'the 90th percentile',
  p99: 'the 99th percentile',
} as const;
export type AnalyticsStatistic = keyof typeof ANALYTICS_STATISTICS;

/** Dimensions that are time buckets of the event's timestamp, in the query's `timezone`. */
export const ANALYTICS_TIME_BUCKETS = {
  hour: 'the hour with its offset, `2026-11-21T16:00:00Z` (`2026-11-21T11:00:00-05:00` in America/New_York)',
  day: 'the day, `2026-11-21`',
  week: 'the ISO week by its Monday, `2026-11-16`',
  month: 'the month, `2026-11`',
} as const;
export type AnalyticsTimeBucket = keyof typeof ANALYTICS_TIME_BUCKETS;

/** Dimensions and columns that are the event's own text fields (an absent id is `""`). */
export const ANALYTICS_EVENT_FIELDS = ['name', 'user_id', 'group_id'] as const;
/**
 * The real API's fields (dimensions, columns and condition fields) that read an event attribute, each
 * by the keys it is sent under: first as the Appcues SDKs send it (camelCase: the web SDK's `flowId`,
 * `stepId`; the mobile SDKs' `experienceId`, `stepType`, `message`, ...), then as sent by hand
 * (snake_case). An event's value is that of the first key it has, `""` when it has none.
 */
export const ANALYTICS_ATTRIBUTE_FIELDS = {
  flow_id: ['flowId', 'flow_id'],
  flow_version: ['flowVersion', 'flow_version'],
  flow_type: ['flowType', 'flow_type'],
  step_id: ['stepId', 'step_id'],
  step_type: ['stepType', 'step_type'],
  step_child_id: ['stepChildId', 'step_child_id'],
  interaction_type: ['interactionType', 'interaction_type'],
  interaction_data: ['interactionData', 'interaction_data'],
  step_error_message: ['message', 'step_error_message'],
  step_child_error_message: ['message', 'step_child_error_message'],
  experience_id: ['experienceId', 'experience_id'],
  experience_type: ['experienceType', 'experience_type'],
  locale_id: ['localeId', 'locale_id'],
  locale_name: ['localeName', 'locale_name'],
  checklist_id: ['checklistId', 'checklist_id'],
  checklist_item_id: ['checklistItemId', 'checklist_item_id'],
  item_id: ['itemId', 'item_id'],
  goal_id: ['goalId', 'goal_id'],
  experiment_id: ['experimentId', 'experiment_id'],
  experiment_group: ['experimentGroup', 'experiment_group'],
  score: ['score'],
  feedback: ['feedback'],
} as const satisfies Record<string, readonly string[]>;
export type AnalyticsAttributeField = keyof typeof ANALYTICS_ATTRIBUTE_FIELDS;
/** The field naming the flow of the flow events, which the event store computes at insert (the flow funnel's dimension). */
export const ANALYTICS_FLOW_FIELD = 'flow_id' satisfies AnalyticsAttributeField;
/** `attributes.<key>` names any attribute as a dimension or a column. */
export const ANALYTICS_ATTRIBUTE_PREFIX = 'attributes.';
/** Raw-row columns besides the event fields, the flow attribute and `attributes.<key>`. */
export const ANALYTICS_EXTRA_COLUMNS = ['timestamp', 'attributes'] as const;

/** Most dimensions (or columns) of one query: more would only multiply the rows. */
export const ANALYTICS_MAX_FIELDS = 16;

/** The longest window of a synchronous query, in days; wider ones are what exports are for. */
export const ANALYTICS_SYNC_MAX_DAYS = 90;

const rangeBound = (description: string, dayMeaning: string) =>
  Type.String({
    description:
      `${description}: RFC 3339 with seconds and \`Z\` or an offset (\`2026-11-01T00:00:00Z\`; fractions of a second are ` +
      `optional), a date-time without a zone (read in \`timezone\`), or a date \`YYYY-MM-DD\` in \`timezone\` (${dayMeaning}). ` +
      `A query's window spans at most ${ANALYTICS_SYNC_MAX_DAYS} days; an export's any length`,
  });

const metricNames = [...Object.keys(ANALYTICS_METRICS), ANALYTICS_CONVERSION_METRIC, ...Object.keys(ANALYTICS_NPS_METRICS)];
const statisticPattern = `^(${Object.keys(ANALYTICS_STATISTICS).join('|')})_.+$`;
const metricMeanings = [
  ...Object.entries(ANALYTICS_METRICS),
  [ANALYTICS_CONVERSION_METRIC, ANALYTICS_CONVERSION_MEANING],
  ...Object.entries(ANALYTICS_NPS_METRICS),
]
  .map(([metric, meaning]) => `\`${metric}\`: ${meaning}`)
  .join('; ');
const statisticMeanings = Object.entries(ANALYTICS_STATISTICS)
  .map(([statistic, meaning]) => `\`${statistic}_<field>\` ${meaning}`)
  .join(', ');
const attributeFieldNames = Object.keys(ANALYTICS_ATTRIBUTE_FIELDS);
const dimensionNames = [...ANALYTICS_EVENT_FIELDS, 'event', ...attributeFieldNames, ...Object.keys(ANALYTICS_TIME_BUCKETS)];
const columnNames = [...ANALYTICS_EVENT_FIELDS, 'event', ...ANALYTICS_EXTRA_COLUMNS, ...attributeFieldNames];
/** Where each attribute field is read from, for the descriptions. */
const attributeFieldKeys = Object.entries(ANALYTICS_ATTRIBUTE_FIELDS)
  .map(([field, keys]) => `\`${field}\` (${keys.map((key) => `\`${key}\``).join(', ')})`)
  .join(', ');

export const AnalyticsQuerySchema = Type.Object(
  {
    metrics: Type.Optional(
      Type.Array(Type.Union([...metricNames.map((metric) => Type.Literal(metric)), Type.String({ pattern: statisticPattern })]), {
        minItems: 1,
        maxItems: ANALYTICS_MAX_FIELDS,
        uniqueItems: true,
        description:
          'Aggregate: one JSON number per metric in each row. ' +
          `${metricMeanings}. ` +
          'The NPS metrics need a `flow_id` condition (`==` or `in`) naming the survey and go in a spec of their own (no other ' +
          "metrics); each is a rolling figure over the 30 days ending with the row's `day` (that day included; without `day`, " +
          "the window's last day), so the first day counts answers from before `start_time`; they take no other time bucket. " +
          '`nps_computed_score` groups by `day` alone, and not beside `nps_scores_submitted`. ' +
          `Statistics of the numeric values (JSON numbers) of an attribute field or \`attributes.<key>\`: ${statisticMeanings} ` +
          '(`avg_score`, `p90_attributes.load_ms`); a percentile is interpolated between the two nearest values; an event whose ' +
          'value is absent or not a number is not counted, and a group with no value answers 0',
      }),
    ),
    dimensions: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: ANALYTICS_MAX_FIELDS,
        uniqueItems: true,
        description:
          'With `metrics`: one row per combination of these values (none: one row in all). ' +
          `\`${dimensionNames.join('`, `')}\` or \`attributes.<key>\` (the attribute's value; a string as is, any other JSON value ` +
          'as its JSON text, `null` when absent). `event` is `name`; an absent id or attribute field is `""`. Time buckets in ' +
          '`timezone`: ' +
          Object.entries(ANALYTICS_TIME_BUCKETS)
            .map(([bucket, meaning]) => `\`${bucket}\` ${meaning}`)
            .join(', ') +
          '; every bucket of the window is answered, a bucket without events with 0 for each metric (with other dimensions, ' +
          'each combination of their values that has events gets every bucket; with two time buckets, none is filled)' +
          `. Attribute fields read the first of these attribute keys an event has: ${attributeFieldKeys}.`,
      }),
    ),
    columns: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: ANALYTICS_MAX_FIELDS,
        uniqueItems: true,
        description:
          `Raw rows instead of \`metrics\`: one object per event, oldest first, with these fields: \`${columnNames.join('`, `')}\` ` +
          'or `attributes.<key>`. `timestamp` is RFC 3339 with milliseconds at the offset of `timezone`; `attributes` is the object ' +
          'of all attributes; an attribute field is the JSON value of its first key the event has (`""` when none).',
      }),
    ),
    conditions: Type.Optional(
      Type.Array(ExportConditionSchema, {
        maxItems: MAX_CONDITIONS,
        description:
          'Filter in the grammar of `POST /export/events` over the fields of `columns` (`event` is `name`; an attribute field ' +
          'compares its first key the event has) and `attributes.<key>`; any other field is a 400. Top-level conditions are ' +
          'joined with AND; none selects all events. A condition on an event name no event has matches nothing.',
      }),
    ),
    start_time: rangeBound('Start of the window (inclusive)', 'as start its first instant'),
    end_time: rangeBound('End of the window (exclusive)', 'as end the first instant of the next day, so that the day counts'),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        default: 'UTC',
        description:
          'IANA time zone name (`UTC`, `America/New_York`): time buckets are its days, weeks, months and hours, raw `timestamp` ' +
          'values are shown at its offset, and dates or date-times without a zone in `start_time`/`end_time` are read in it',
      }),
    ),
    order_by: Type.Optional(
      Type.Array(Type.Tuple([Type.String({ minLength: 1 }), Type.Union([Type.Literal('asc'), Type.Literal('desc')])]), {
        maxItems: 2 * ANALYTICS_MAX_FIELDS,
        description:
          'Sort by these selected fields (a dimension, metric or column of the spec, by the name it was asked by), each `asc` or ' +
          '`desc`, before the default order (time buckets oldest first, then the first metric largest first; raw rows oldest first)',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Most rows answered; never more than the server row limit (`GUIDEPOST_ANALYTICS_MAX_ROWS`, 1,000 by default, for a query)',
      }),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Rows of the sorted result to skip before the first one answered' })),
    rank_n: Type.Optional(
      Type.Object(
        {
          n: Type.Integer({ minimum: 1, description: 'How many values to keep' }),
          direction: Type.Optional(
            Type.Union([Type.Literal('top'), Type.Literal('bottom')], {
              default: 'top',
              description: '`top`: the values with the largest totals; `bottom`: the smallest',
            }),
          ),
          dimension: Type.String({
            minLength: 1,
            description: 'The dimension whose values are ranked (`name` in the real API; here any dimension of the spec but a time bucket)',
          }),
        },
        {
          additionalProperties: false,
          description:
            "With `metrics`: keep only the `n` values of `dimension` whose total of the first metric over the whole window (the spec's " +
            'conditions applied) is largest (`top`) or smallest (`bottom`), ties broken by the value in ascending order, then answer ' +
            'every row of those values: with a time bucket, their whole zero-filled series',
        },
      ),
    ),
    account_id: Type.Optional(Type.Unknown({ description: "Ignored: the account is the path's, and the credentials'" })),
  },
  {
    $id: 'AnalyticsQuery',
    // Closed, unlike the other bodies: a misspelt field ignored (`dimension`) would change the answer unseen.
    additionalProperties: false,
    description:
      'A query spec: `metrics` (with optional `dimensions`) for aggregate rows, or `columns` for raw event rows; exactly one of ' +
      'the two. Every 400 names the offending field (`metrics[1]`, `dimensions[0]`, `conditions[0][1]`, `end_time`). ' +
      'Unlike other bodies, a field the spec does not name is refused with 400 naming it, since ignoring a misspelt one ' +
      '(`dimension`) would change the answer unseen; `account_id` is taken and ignored.',
  },
);
export type AnalyticsQuery = Static<typeof AnalyticsQuerySchema>;

/** One answer row: a value per dimension (or column) and a number per metric. */
export const AnalyticsRowSchema = Type.Record(Type.String(), Type.Unknown(), {
  $id: 'AnalyticsRow',
  description: 'One row: the dimension values (text or `null`) and one number per metric; or, for `columns`, the event fields asked for',
});

/** How long the `download_url` of a finished analytics export works: each poll signs a fresh one. */
export const ANALYTICS_DOWNLOAD_LINK_SECONDS = 3600;

/** The 202 of `POST /analytics/exports`: the job, `queued`, and where to poll it. */
export const AnalyticsExportAcknowledgementSchema = Type.Object(
  {
    job_id: Type.String({ description: 'The job of the export' }),
    status: Type.Literal('queued'),
    status_url: Type.String({ format: 'uri', description: 'Absolute URL of `GET /analytics/exports/{job_id}`; answers at once' }),
  },
  { $id: 'AnalyticsExportAcknowledgement', description: 'An analytics export accepted' },
);
export type AnalyticsExportAcknowledgement = Static<typeof AnalyticsExportAcknowledgementSchema>;

export const AnalyticsExportStatusSchema = Type.Object(
  {
    job_id: Type.String({ description: 'The job of the export' }),
    // The states the official CLI waits on: `queued` (the 202), then these; `done` and `failed` are final.
    status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')], {
      description: '`running` until the result is written (`done`) or cannot be (`failed`); `done` and `failed` are final',
    }),
    started_at: Type.String({ format: 'date-time', description: 'When the export was requested' }),
    download_url: Type.Optional(
      Type.String({
        format: 'uri',
        description:
          `When \`done\`: link to the result, a JSON array of rows; it needs no credentials and works ${ANALYTICS_DOWNLOAD_LINK_SECONDS} ` +
          'seconds: each poll answers a fresh one',
      }),
    ),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When `done`: when `download_url` stops working' })),
    rows: Type.Optional(Type.Integer({ minimum: 0, description: 'When `done`: rows in the result' })),
    truncated: Type.Optional(
      Type.Boolean({
        description: 'When `done`: whether the result was clamped to the export row limit (`GUIDEPOST_ANALYTICS_EXPORT_MAX_ROWS`)',
      }),
    ),
    failure_reason: Type.Optional(Type.String({ description: 'When `failed`: why' })),
  },
  { $id: 'AnalyticsExportStatus', description: 'The state of an analytics export' },
);
export type AnalyticsExportStatus = Static<typeof AnalyticsExportStatusSchema>;

/** Absolute URL of an analytics export's state under the request's public base URL (`@PublicBaseUrl()`, platform-http). */
export function analyticsExportUrlOf(baseUrl: string, accountId: string, jobId: string): string {
  return `${baseUrl}/v2/accounts/${encodeURIComponent(accountId)}/analytics/exports/${encodeURIComponent(jobId)}`;
}

export function analyticsExportAcknowledgement(baseUrl: string, accountId: string, jobId: string): AnalyticsExportAcknowledgement {
  return { job_id: jobId, status: 'queued', status_url: analyticsExportUrlOf(baseUrl, accountId, jobId) };
}

/** Response headers of `POST /analytics/query`. */
export const ANALYTICS_HEADERS = {
  rowsTruncated: 'X-Rows-Truncated',
  concurrencyLimit: 'X-Concurrency-Limit',
  concurrencyUsed: 'X-Concurrency-Used',
} as const;

/** Examples of query specs, shown on the request body in the OpenAPI document and quoted in docs/analytics.md. */
export const ANALYTICS_QUERY_EXAMPLES = {
  flowFunnel: {
    summary: 'Flow funnel: events and users per flow and flow event',
    value: {
      metrics: ['events', 'users'],
      dimensions: ['flow_id', 'name'],
      conditions: [['name', 'in', ['appcues:flow_started', 'appcues:flow_completed', 'appcues:flow_skipped', 'appcues:step_error']]],
      start_time: '2026-11-01T00:00:00Z',
      end_time: '2026-12-01T00:00:00Z',
    },
  },
  dailyActiveUsers: {
    summary: 'Daily active users',
    value: { metrics: ['users'], dimensions: ['day'], start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-08T00:00:00Z' },
  },
  topEventsByDay: {
    summary: 'The daily series of the five most frequent events (rank_n), each day answered',
    value: {
      metrics: ['events'],
      dimensions: ['day', 'name'],
      rank_n: { n: 5, direction: 'top', dimension: 'name' },
      start_time: '2026-11-01',
      end_time: '2026-11-30',
    },
  },
  topEvents: {
    summary: 'Top 10 events by count',
    value: {
      metrics: ['events', 'users'],
      dimensions: ['name'],
      start_time: '2026-11-01T00:00:00Z',
      end_time: '2026-12-01T00:00:00Z',
      limit: 10,
    },
  },
  npsScore: {
    summary: "NPS: a survey's daily score and buckets, each over the 30 days up to its day",
    value: {
      metrics: ['nps_computed_score', 'nps_promoters', 'nps_neutrals', 'nps_detractors'],
      dimensions: ['day'],
      conditions: [['flow_id', '==', 'survey-1']],
      start_time: '2026-11-01T00:00:00Z',
      end_time: '2026-12-01T00:00:00Z',
      timezone: 'UTC',
    },
  },
  rawEvents: {
    summary: "Raw rows: one user's flow events",
    value: {
      columns: ['timestamp', 'name', 'flow_id', 'attributes'],
      conditions: [
        ['user_id', '==', 'user-1'],
        ['name', 'like', 'appcues:%'],
      ],
      start_time: '2026-11-01T00:00:00Z',
      end_time: '2026-11-02T00:00:00Z',
    },
  },
} as const;
