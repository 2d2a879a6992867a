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
  sessions: 'number of distinct `session_id` values (events without one are not counted)',
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

/** How a stored field's value is derived from the text its keys give (each computed at insert, event-store migration 7). */
export const ANALYTICS_VALUE_PARSERS = {
  platform: "`ios`, `android` (the mobile SDKs' `_operatingSystem`, lower-cased), `web` for a browser's user agent",
  browser: "from the user agent: `Edge`, `Opera`, `Samsung Internet`, `Firefox`, `Chrome`, `Safari`, `WebView` (an app's web view)",
  os: 'from the user agent: `Windows`, `iOS`, `Android`, `ChromeOS`, `macOS`, `Linux`',
  device: 'from the user agent: `tablet`, `mobile`, else `desktop`',
  cpu: 'from the user agent: `amd64`, `arm64`, `arm`, `ia32` (only when it names one)',
  engine: 'from the user agent: `EdgeHTML`, `Trident`, `WebKit` (every iOS browser), `Gecko`, `Blink`',
} as const;
export type AnalyticsValueParser = keyof typeof ANALYTICS_VALUE_PARSERS;

/** Parts of the event's page (`context.url` of the track API), by ClickHouse's URL functions. */
export const ANALYTICS_PAGE_PARTS = {
  url: 'the whole URL',
  hostname: 'its host, `app.example.com`',
  path: 'its path, `/settings/billing`',
  hash: 'its fragment without `#`',
  query: 'its query string without `?`',
} as const;
export type AnalyticsPagePart = keyof typeof ANALYTICS_PAGE_PARTS;

/**
 * What a field of the vocabulary reads from an event:
 * - `column`: the event's own text field (an absent id is `""`);
 * - `record`: the event as stored: `timestamp` (RFC 3339 with milliseconds at the offset of `timezone`), `attributes` (the
 *   JSON object of all attributes), `context` (the JSON object of the kept context, `{"url": ...}` or `{}`);
 * - `keys`: the first of these attribute keys an event has; a key path names a key inside an object by dots
 *   (`_identity._sessionId` is `_sessionId` inside `_identity`, where the mobile SDKs put their own properties); no SDK
 *   key holds a dot. The value is text: a string as is, any other JSON value as its JSON text, `""` when no key is there.
 *   `stored`: a column of the event store computed at insert (event-store migration 7), so queries parse no JSON for it;
 *   `parse` then derives the stored value from that text (`ANALYTICS_VALUE_PARSERS`);
 * - `page`: a part of the event's page URL (`ANALYTICS_PAGE_PARTS`), `""` without one;
 * - `unavailable`: a name of the real API this store cannot answer, and why (a 400 says so).
 */
export type AnalyticsFieldReading =
  | { readonly column: 'name' | 'user_id' | 'group_id' }
  | { readonly record: 'timestamp' | 'attributes' | 'context' }
  | { readonly keys: readonly string[]; readonly stored?: true; readonly parse?: AnalyticsValueParser }
  | { readonly page: AnalyticsPagePart }
  | { readonly unavailable: string };

/** The groups of the real API's dimensions (the field-by-field reference of the analytics-query skill in appcues/skills), for the docs. */
export type AnalyticsFieldGroup =
  | 'time'
  | 'event'
  | 'identity'
  | 'flows'
  | 'flow errors'
  | 'experiences'
  | 'checklists'
  | 'goals and experiments'
  | 'NPS'
  | 'page'
  | 'device'
  | 'membership'
  | 'profiles';

export interface AnalyticsFieldDefinition {
  readonly group: AnalyticsFieldGroup;
  readonly reads: AnalyticsFieldReading;
}

/** The keys a user agent is read from: the SDKs' `_identity._userAgent`, then as sent by hand. */
const USER_AGENT_KEYS = ['_identity._userAgent', 'userAgent', 'user_agent'];
const userAgent = (parse: AnalyticsValueParser): AnalyticsFieldDefinition => ({
  group: 'device',
  reads: { keys: USER_AGENT_KEYS, stored: true, parse },
});
/** A field read from its SDK key (camelCase) first, then its own snake_case name, as sent by hand. */
const sdkKey = (group: AnalyticsFieldGroup, camelCase: string, snakeCase: string, stored?: true): AnalyticsFieldDefinition => ({
  group,
  reads: { keys: camelCase === snakeCase ? [camelCase] : [camelCase, snakeCase], ...(stored ? { stored } : {}) },
});
const profileField: AnalyticsFieldDefinition = {
  group: 'profiles',
  reads: {
    unavailable:
      "is a profile field: the event store holds events, not profiles; read a user's profile with GET /v2/accounts/{account}/users/{user_id}/profile",
  },
};

/**
 * The whole vocabulary of dimensions, columns and condition fields (besides the time buckets and `attributes.<key>`), each
 * read from what the Appcues SDKs send: the web SDK's `flowId`, `stepId`, ...; the mobile SDKs' `experienceId`, `stepType`,
 * `message`, and their own properties under `attributes._identity` (`_sessionId`, `_appId`, `_operatingSystem`,
 * `_userAgent`: appcues-ios-sdk `AutoPropertyDecorator.swift`, appcues-android-sdk `AutoPropertyDecorator.kt`). Where no
 * source names a key, the camelCase form of the name, then the name itself. Validation, the SQL, the OpenAPI description
 * and docs/analytics.md all read this table.
 */
export const ANALYTICS_FIELDS = {
  timestamp: { group: 'time', reads: { record: 'timestamp' } },
  name: { group: 'event', reads: { column: 'name' } },
  event_type: sdkKey('event', 'eventType', 'event_type'),
  source: sdkKey('event', 'source', 'source'),
  platform: {
    group: 'event',
    reads: { keys: ['_identity._operatingSystem', 'platform', ...USER_AGENT_KEYS], stored: true, parse: 'platform' },
  },
  app_id: { group: 'event', reads: { keys: ['_identity._appId', 'appId', 'app_id'] } },
  attributes: { group: 'event', reads: { record: 'attributes' } },
  context: { group: 'event', reads: { record: 'context' } },
  user_id: { group: 'identity', reads: { column: 'user_id' } },
  group_id: { group: 'identity', reads: { column: 'group_id' } },
  session_id: { group: 'identity', reads: { keys: ['_identity._sessionId', 'sessionId', 'session_id'], stored: true } },
  email: sdkKey('identity', 'email', 'email'),
  identity: { group: 'identity', reads: { keys: ['_identity'] } },
  flow_id: sdkKey('flows', 'flowId', 'flow_id'),
  flow_version: sdkKey('flows', 'flowVersion', 'flow_version'),
  flow_type: sdkKey('flows', 'flowType', 'flow_type'),
  step_id: sdkKey('flows', 'stepId', 'step_id', true),
  step_type: sdkKey('flows', 'stepType', 'step_type'),
  step_child_id: sdkKey('flows', 'stepChildId', 'step_child_id'),
  interaction_type: sdkKey('flows', 'interactionType', 'interaction_type'),
  interaction_data: sdkKey('flows', 'interactionData', 'interaction_data'),
  step_error_message: { group: 'flow errors', reads: { keys: ['message', 'step_error_message'], stored: true } },
  step_error_url: sdkKey('flow errors', 'stepErrorUrl', 'step_error_url'),
  step_child_error_message: { group: 'flow errors', reads: { keys: ['message', 'step_child_error_message'], stored: true } },
  step_child_error_url: sdkKey('flow errors', 'stepChildErrorUrl', 'step_child_error_url'),
  experience_id: sdkKey('experiences', 'experienceId', 'experience_id', true),
  experience_type: sdkKey('experiences', 'experienceType', 'experience_type'),
  survey_id: sdkKey('experiences', 'surveyId', 'survey_id'),
  response_value: sdkKey('experiences', 'responseValue', 'response_value'),
  search_query: sdkKey('experiences', 'searchQuery', 'search_query'),
  checklist_id: sdkKey('checklists', 'checklistId', 'checklist_id'),
  checklist_item_id: sdkKey('checklists', 'checklistItemId', 'checklist_item_id'),
  item_id: sdkKey('checklists', 'itemId', 'item_id'),
  goal_id: sdkKey('goals and experiments', 'goalId', 'goal_id'),
  goal_version: sdkKey('goals and experiments', 'goalVersion', 'goal_version'),
  experiment_id: sdkKey('goals and experiments', 'experimentId', 'experiment_id'),
  experiment_group: sdkKey('goals and experiments', 'experimentGroup', 'experiment_group'),
  score: sdkKey('NPS', 'score', 'score'),
  feedback: sdkKey('NPS', 'feedback', 'feedback'),
  window: sdkKey('NPS', 'window', 'window'),
  url: { group: 'page', reads: { page: 'url' } },
  hostname: { group: 'page', reads: { page: 'hostname' } },
  path: { group: 'page', reads: { page: 'path' } },
  hash: { group: 'page', reads: { page: 'hash' } },
  query: { group: 'page', reads: { page: 'query' } },
  context_url: { group: 'page', reads: { page: 'url' } },
  screen_id: sdkKey('page', 'screenId', 'screen_id'),
  current_page_url: { group: 'page', reads: { keys: ['_identity._currentPageUrl', 'currentPageUrl', 'current_page_url'] } },
  last_page_url: { group: 'page', reads: { keys: ['_identity._lastPageUrl', 'lastPageUrl', 'last_page_url'] } },
  user_agent_browser: userAgent('browser'),
  user_agent_os: userAgent('os'),
  user_agent_device: userAgent('device'),
  user_agent_cpu: userAgent('cpu'),
  user_agent_engine: userAgent('engine'),
  locale_id: sdkKey('device', 'localeId', 'locale_id'),
  locale_name: sdkKey('device', 'localeName', 'locale_name'),
  segment_id: sdkKey('membership', 'segmentId', 'segment_id'),
  user_segment_id: sdkKey('membership', 'userSegmentId', 'user_segment_id'),
  campaign_id: sdkKey('membership', 'campaignId', 'campaign_id'),
  tactic_id: sdkKey('membership', 'tacticId', 'tactic_id'),
  user_group_id: sdkKey('membership', 'userGroupId', 'user_group_id'),
  attribute_name: profileField,
  attribute_value: profileField,
  last_seen: profileField,
  last_updated: profileField,
} as const satisfies Record<string, AnalyticsFieldDefinition>;
export type AnalyticsField = keyof typeof ANALYTICS_FIELDS;
/** The real API's other name of `name`, in dimensions, columns and conditions alike. */
export const ANALYTICS_EVENT_ALIAS = 'event';

/** The fields read from attribute keys (`ANALYTICS_FIELDS`), each by its keys: what NPS and flow metrics read too. */
export const ANALYTICS_ATTRIBUTE_FIELDS = Object.fromEntries(
  Object.entries(ANALYTICS_FIELDS).flatMap(([field, { reads }]) => ('keys' in reads ? [[field, reads.keys]] : [])),
) as Record<string, readonly string[]>;
/** The field naming the flow of the flow events, which the event store computes at insert (the flow funnel's dimension). */
export const ANALYTICS_FLOW_FIELD = 'flow_id' satisfies AnalyticsField;
/** `attributes.<key>` names any attribute as a dimension or a column. */
export const ANALYTICS_ATTRIBUTE_PREFIX = 'attributes.';

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
/** The fields a query can select or compare: the vocabulary but for the profile fields, and `event`. */
export const ANALYTICS_QUERY_FIELDS = Object.entries(ANALYTICS_FIELDS).flatMap(([field, { reads }]) => {
  if ('unavailable' in reads) return [];
  return field === 'name' ? [field, ANALYTICS_EVENT_ALIAS] : [field];
});
const dimensionNames = [...ANALYTICS_QUERY_FIELDS, ...Object.keys(ANALYTICS_TIME_BUCKETS)];

/** What a field of the vocabulary reads, in words: the OpenAPI description and docs/analytics.md. */
export function analyticsFieldReadingText(reading: AnalyticsFieldReading): string {
  if ('column' in reading) return `the event's \`${reading.column}\``;
  if ('record' in reading) return `the event's ${reading.record}`;
  if ('page' in reading) return `the event's page (\`context.url\`): ${ANALYTICS_PAGE_PARTS[reading.page]}`;
  if ('unavailable' in reading) return `refused: ${reading.unavailable}`;
  const keys = reading.keys.map((key) => `\`${key}\``).join(', ');
  const stored = reading.stored ? ' (stored)' : '';
  return reading.parse ? `${ANALYTICS_VALUE_PARSERS[reading.parse]}, read from ${keys}${stored}` : `${keys}${stored}`;
}
const fieldReadings = Object.entries(ANALYTICS_FIELDS)
  .map(([field, { reads }]) => `\`${field}\` ${analyticsFieldReadingText(reads)}`)
  .join('; ');

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
          'as its JSON text, `null` when absent). `event` is `name`; an absent value of any other field is `""`. Time buckets in ' +
          '`timezone`: ' +
          Object.entries(ANALYTICS_TIME_BUCKETS)
            .map(([bucket, meaning]) => `\`${bucket}\` ${meaning}`)
            .join(', ') +
          '; every bucket of the window is answered, a bucket without events with 0 for each metric (with other dimensions, ' +
          'each combination of their values that has events gets every bucket; with two time buckets, none is filled)' +
          '. Each field reads the first of its attribute keys an event has (a dotted key is a path into an object), or what ' +
          `is named: ${fieldReadings}. Profile fields are refused: the event store holds no profiles.`,
      }),
    ),
    columns: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: ANALYTICS_MAX_FIELDS,
        uniqueItems: true,
        description:
          `Raw rows instead of \`metrics\`: one object per event, oldest first, with these fields: any field of \`dimensions\` but the ` +
          'time buckets, or `attributes.<key>`. `timestamp` is RFC 3339 with milliseconds at the offset of `timezone`; `attributes` ' +
          'and `context` are objects; a field read from attribute keys is the JSON value of its first key the event has, and a ' +
          'stored or page field its text (`""` when none).',
      }),
    ),
    conditions: Type.Optional(
      Type.Array(ExportConditionSchema, {
        maxItems: MAX_CONDITIONS,
        description:
          'Filter in the grammar of `POST /export/events` over the fields of `columns` (`event` is `name`; a field read from ' +
          'attribute keys compares the JSON value of its first key the event has, a stored or page field its text) and `attributes.<key>`; any other field is a 400. Top-level conditions are ' +
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
    // The states the official CLI waits on; `done` and `failed` are final.
    status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')], {
      description:
        '`queued` until a worker takes the export up, then `running` until the result is written (`done`) or cannot be (`failed`); ' +
        '`done` and `failed` are final',
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
