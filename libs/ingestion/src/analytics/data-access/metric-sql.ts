import { ANALYTICS_ATTRIBUTE_FIELDS, type AnalyticsNpsMetric, type AnalyticsStatistic } from '@guidepost/contracts-http';
import { EVENTS_TABLE } from '../../events/data-access/clickhouse-event-store.adapter';
import type { Metric } from '../application/analytics-metrics';

/** Turns a name the client chose into a placeholder of the statement (`{aN:String}`), so that no request text enters the SQL. */
export interface TextParameters {
  text(value: string): string;
}

/** The query's IANA zone (`timezone`). */
const ZONE = '{time_zone:String}';

/**
 * What a metric computes per group, but for the counts (`METRIC_SQL`). Each is a number wherever a
 * group has nothing to count (0), never NULL or NaN: clients read every metric as a JSON number.
 */
export function metricSql(metric: Exclude<Metric, { kind: 'count' }>, parameters: TextParameters): string {
  switch (metric.kind) {
    case 'statistic':
      return `ifNotFinite(ifNull(${STATISTIC_SQL[metric.statistic](numericValue(metric.keys, parameters))}, 0), 0)`;
    case 'conversion':
      return CONVERSION_SQL;
    case 'nps':
      return NPS_SQL[metric.name];
  }
}

/** Each statistic of a Nullable number; NULLs are not counted, and a group of NULLs only gives NULL. */
const STATISTIC_SQL: Record<AnalyticsStatistic, (value: string) => string> = {
  avg: (value) => `avg(${value})`,
  // Interpolated between the two nearest values, as spreadsheets' PERCENTILE.INC: the median of 1, 2, 3, 4 is 2.5.
  median: (value) => `quantileExactInclusive(0.5)(${value})`,
  p90: (value) => `quantileExactInclusive(0.9)(${value})`,
  p99: (value) => `quantileExactInclusive(0.99)(${value})`,
};

/**
 * The JSON text of the first of `keys` an event has (`''` when none), from the map of attribute values
 * the conditions read too; `keys` are given as SQL (placeholders or constants).
 */
function firstPresent(keys: readonly string[]): string {
  const values = keys.map((key) => `attribute_values[${key}]`);
  return values.reduceRight((otherwise, value) => `if(${value} != '', ${value}, ${otherwise})`);
}

/** An attribute's value when it is a JSON number, else NULL (a string such as `"9"`, `true`, absent). */
function numericValue(keys: readonly string[], parameters: TextParameters): string {
  return `toFloat64OrNull(${firstPresent(keys.map((key) => parameters.text(key)))})`;
}

/** The keys of an attribute field, as SQL constants: they are the server's, not the client's. */
function fieldKeys(field: keyof typeof ANALYTICS_ATTRIBUTE_FIELDS): string[] {
  return ANALYTICS_ATTRIBUTE_FIELDS[field].map((key) => `'${key}'`);
}

/** A flow's start and completion, classic (by `flow_id`) and Flows 2.0 (by `experience_id`). */
const FLOW_STARTS = "('appcues:flow_started', 'appcues:v2:experience_started')";
const FLOW_COMPLETIONS = "('appcues:flow_completed', 'appcues:v2:experience_completed')";
/** The flow an event is of: its experience id for a Flows 2.0 event, its flow id otherwise. */
const FLOW_OF_EVENT = `if(startsWith(name, 'appcues:v2:'), ${firstPresent(fieldKeys('experience_id'))}, ${firstPresent(fieldKeys('flow_id'))})`;
/**
 * The users (by `user_key`) and flows of the events named in `names`, as a bitmap of keys of (user,
 * flow). The key is 0, and not counted, for the group's other events: `if` reads their attributes only
 * for the events named, not for every event of the group.
 */
function userFlows(names: string): string {
  const key = `if(name IN ${names} AND user_key != 0 AND ${FLOW_OF_EVENT} != '', cityHash64(user_key, ${FLOW_OF_EVENT}), 0)`;
  return `groupBitmapStateIf(${key}, ${key} != 0)`;
}
const CONVERSION_SQL =
  `if(bitmapCardinality(${userFlows(FLOW_STARTS)}) = 0, 0, ` +
  `bitmapAndCardinality(${userFlows(FLOW_STARTS)}, ${userFlows(FLOW_COMPLETIONS)}) / bitmapCardinality(${userFlows(FLOW_STARTS)}))`;

/** The NPS events: the classic web SDK's three, and NPS 2.0's score with its reply. */
const NPS_SURVEY_STARTED = 'appcues:nps_survey_started';
const NPS_SCORE_EVENTS = "('appcues:nps_score', 'appcues:nps_score_and_feedback')";
const NPS_FEEDBACK_EVENTS = "('appcues:nps_feedback', 'appcues:nps_score_and_feedback')";
const NPS_EVENTS = `('${NPS_SURVEY_STARTED}', 'appcues:nps_score', 'appcues:nps_feedback', 'appcues:nps_score_and_feedback')`;
/** Distinct values of a score in an answer's key (`nps_answer`): a score takes 0 to 10. */
const SCORE_RADIX = 16;

/**
 * What the NPS metrics need of each user in a group (besides the group's dimension values), over the
 * rows of `rollingNpsRows`: the user's latest answer (the largest key, `nps_answer`, whose remainder by
 * SCORE_RADIX is the score; 0 for none, and for the events of no user) and the user's events of each
 * kind. The NPS metrics then aggregate one row per user: grouping by user first took the rolling score
 * over 10 M events from 3.4 s (a map of users per group, `maxMap`) to 0.8 s.
 */
export const NPS_PER_USER = [
  `max(nps_answer) AS nps_latest_answer`,
  `countIf(name = '${NPS_SURVEY_STARTED}') AS nps_surveys_started`,
  'countIf(nps_scored) AS nps_scores',
  'countIf(nps_feedback_sent) AS nps_feedbacks',
];
const respondents = (lowest: number, highest: number) =>
  `countIf(nps_latest_answer > 0 AND nps_latest_answer % ${SCORE_RADIX} BETWEEN ${lowest} AND ${highest})`;
const PROMOTERS = respondents(9, 10);
const DETRACTORS = respondents(0, 6);
/** round((promoters - detractors) / respondents * 100), halves away from zero, in integers: exact, and 0 without respondents. */
const NET = `(toInt64(${PROMOTERS}) - toInt64(${DETRACTORS}))`;
const RESPONDENTS = 'toInt64(countIf(nps_latest_answer > 0))';
/** Over the rows of `NPS_PER_USER`. */
const NPS_SQL: Record<AnalyticsNpsMetric, string> = {
  nps_computed_score: `if(${RESPONDENTS} = 0, 0, intDiv(200 * ${NET} + sign(${NET}) * ${RESPONDENTS}, 2 * ${RESPONDENTS}))`,
  nps_promoters: PROMOTERS,
  nps_neutrals: respondents(7, 8),
  nps_detractors: DETRACTORS,
  nps_survey_started: 'sum(nps_surveys_started)',
  nps_scores_submitted: 'sum(nps_scores)',
  nps_feedbacks_submitted: 'sum(nps_feedbacks)',
};

/** The first and last day of the window in its zone (`end_time` is exclusive). */
const FIRST_DAY = `toDate({start_time:DateTime64(3, 'UTC')}, ${ZONE})`;
const LAST_DAY = `toDate(subtractMilliseconds({end_time:DateTime64(3, 'UTC')}, 1), ${ZONE})`;

/** The days of the window an event counts for: its own and the 29 after it, from `firstDay` to the window's last day. */
function daysCounted(firstDay: string): string {
  const eventDay = `toDate(timestamp, ${ZONE})`;
  const from = `greatest(${eventDay}, ${firstDay})`;
  const to = `least(addDays(${eventDay}, 29), ${LAST_DAY})`;
  return `arrayMap(offset -> addDays(${from}, offset), range(toUInt32(greatest(0, dateDiff('day', ${from}, ${to}) + 1))))`;
}

/**
 * The rows the NPS metrics aggregate: each NPS event of the account that meets `conditions` (SQL), once
 * for every day it counts for, with `timestamp` the start of that day in the zone, so that the `day`
 * bucket is the day the figures are as of. The days are the window's (`byDay`), else its last day
 * alone; an event counts for the 30 days from its own, so the rows reach 30 days before the window.
 * Besides the events' columns (all of them: a dimension may read any): `nps_scored` (a score from 0
 * to 10 was sent), `nps_answer` (a user's scored answer as one number that grows with its time, 0 for
 * none) and `nps_feedback_sent`.
 */
export function rollingNpsRows(conditions: string, byDay: boolean): string {
  const score = `toFloat64OrNull(${firstPresent(fieldKeys('score'))})`;
  const feedback = firstPresent(fieldKeys('feedback'));
  const answers =
    `ifNull(name IN ${NPS_SCORE_EVENTS} AND ${score} BETWEEN 0 AND 10 AND ${score} = floor(${score}), 0) AS nps_scored, ` +
    `if(nps_scored AND user_key != 0, toUnixTimestamp64Milli(timestamp) * ${SCORE_RADIX} + toInt64(ifNull(${score}, 0)), 0) AS nps_answer, ` +
    `name IN ${NPS_FEEDBACK_EVENTS} AND ${feedback} NOT IN ('', 'null', '""') AS nps_feedback_sent`;
  const reach = `subtractDays(${byDay ? "{start_time:DateTime64(3, 'UTC')}" : "{end_time:DateTime64(3, 'UTC')}"}, 31)`;
  const events =
    `SELECT *, as_of_day, ${answers} FROM ${EVENTS_TABLE} ARRAY JOIN ${daysCounted(byDay ? FIRST_DAY : LAST_DAY)} AS as_of_day ` +
    `WHERE account_id = {account_id:String} AND timestamp >= ${reach} AND timestamp < {end_time:DateTime64(3, 'UTC')} ` +
    `AND name IN ${NPS_EVENTS} AND (${conditions}) ` +
    'SETTINGS asterisk_include_materialized_columns = 1, asterisk_include_alias_columns = 1';
  return `(SELECT * REPLACE (toDateTime64(as_of_day, 3, ${ZONE}) AS timestamp) FROM (${events}))`;
}
