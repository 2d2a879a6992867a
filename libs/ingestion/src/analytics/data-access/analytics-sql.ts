import {
  ANALYTICS_ATTRIBUTE_FIELDS,
  ANALYTICS_FLOW_FIELD,
  type AnalyticsMetric,
  type AnalyticsTimeBucket,
} from '@guidepost/contracts-http';
import { isNpsMetric, type Metric } from '../application/analytics-metrics';
import { compileExportConditions, type ConditionField } from '../../events/domain/export-conditions';
import { CONTEXT_JSON_SQL, PAGE_PART_SQL } from '../domain/analytics-field-sql';
import { dateTime64Param } from '../../events/domain/instant';
import { READ_SETTINGS } from '../../events/data-access/event-sql';
import { EVENTS_TABLE } from '../../events/data-access/clickhouse-event-store.adapter';
import { UNPARSED_FLOW_ID_SQL } from '../../events/data-access/clickhouse-migrations';
import {
  analyticsConditionField,
  keyPathOf,
  type AnalyticsSpec,
  type EventField,
  type EventRecordField,
  type OutputField,
  type RankFilter,
  type SortKey,
} from '../application/analytics-spec';
import { metricSql, NPS_PER_USER, rollingNpsRows } from './metric-sql';

type AggregateSpec = Extract<AnalyticsSpec, { shape: 'aggregate' }>;

/** One statement of an analytics query: each result row is one JSON object text (`FORMAT TabSeparatedRaw`). */
export interface AnalyticsStatement {
  readonly sql: string;
  readonly params: Record<string, unknown>;
}

/**
 * What each metric computes per group; ids are empty for events without one, which no metric counts.
 * Users are told apart by `user_key`, a 64-bit hash of the id stored with each event: counting those
 * takes half the time of hashing every id's text in the query (docs/analytics.md, "Speed").
 */
const METRIC_SQL: Record<AnalyticsMetric, string> = {
  events: 'count()',
  users: 'uniqExactIf(user_key, user_key != 0)',
  groups: "uniqExactIf(group_id, group_id != '')",
  sessions: "uniqExactIf(session_id, session_id != '')",
};

/** The query's IANA zone (`timezone`), a constant to every function that takes one. */
const ZONE = '{time_zone:String}';

/** How the zone's clocks stand at `instant`, as RFC 3339 names it: `Z`, `+05:30`, `-04:00`. */
function offsetDesignator(instant: string): string {
  const seconds = `timeZoneOffset(toTimeZone(${instant}, ${ZONE}))`;
  const hhmm = `formatDateTime(toDateTime(abs(${seconds}), 'UTC'), '%H:%i', 'UTC')`;
  return `if(${seconds} = 0, 'Z', concat(if(${seconds} < 0, '-', '+'), ${hhmm}))`;
}

/**
 * A time bucket: its value for an instant in the query's zone (a Date, or the hour's first instant),
 * the step from one bucket to the next (what zero-filling counts by), and its text in the answer.
 */
interface TimeBucketSql {
  of(instant: string): string;
  readonly step: string;
  text(bucket: string): string;
}

const TIME_BUCKETS: Record<AnalyticsTimeBucket, TimeBucketSql> = {
  hour: {
    of: (instant) => `toStartOfHour(${instant}, ${ZONE})`,
    step: 'INTERVAL 1 HOUR',
    text: (bucket) => `concat(formatDateTime(${bucket}, '%Y-%m-%dT%H:00:00', ${ZONE}), ${offsetDesignator(bucket)})`,
  },
  day: { of: (instant) => `toDate(${instant}, ${ZONE})`, step: 'INTERVAL 1 DAY', text: (bucket) => `toString(${bucket})` },
  week: { of: (instant) => `toMonday(${instant}, ${ZONE})`, step: 'INTERVAL 1 WEEK', text: (bucket) => `toString(${bucket})` },
  month: {
    of: (instant) => `toStartOfMonth(${instant}, ${ZONE})`,
    step: 'INTERVAL 1 MONTH',
    text: (bucket) => `formatDateTime(${bucket}, '%Y-%m')`,
  },
};

/** A raw row's timestamp at the zone's offset, with milliseconds: `2026-11-01T09:30:00.250-04:00`. */
const ZONED_TIMESTAMP = `concat(replaceOne(toString(toTimeZone(timestamp, ${ZONE})), ' ', 'T'), ${offsetDesignator('timestamp')})`;

/**
 * The analytics query as one parameterised ClickHouse statement. The window and the conditions are
 * the export's (`compileExportConditions`: the same grammar, compiled the same way, `p0`, `p1`, ...
 * placeholders); every name the client chose (output keys, attribute keys) is a placeholder too, so
 * no request text ever enters the SQL. Rows are rendered to JSON by ClickHouse.
 *
 * It reads `events` without `FINAL`: the store keeps no copy of an event (event-store migration 4), so
 * merging parts at read time, which made a query over an import's unmerged parts 2 to 4 times slower
 * (docs/analytics.md, "Speed"), would change nothing. A copy that got past the insert (two replicas
 * inserting one event at the same moment, or one stored before migration 4) is counted until a merge
 * collapses it. Exports and history, which promise exact rows, still read with `FINAL`.
 */
export function analyticsStatement(accountId: string, spec: AnalyticsSpec, maxRows: number): AnalyticsStatement {
  const conditions = compileExportConditions(spec.conditions, conditionFieldOf);
  const params: Record<string, unknown> = {
    ...conditions.params,
    account_id: accountId,
    start_time: dateTime64Param(spec.startTime),
    end_time: dateTime64Param(spec.endTime),
    max_rows: maxRows,
    offset: spec.offset,
    time_zone: spec.timeZone,
  };
  const placeholders = new Placeholders(params);
  const where = `${ACCOUNT_WINDOW} AND (${conditions.sql})`;
  const sql =
    spec.shape === 'raw'
      ? rawRows(spec.columns, spec.orderBy, where, placeholders)
      : aggregateRows(spec, aggregatedRows(spec, conditions.sql, where, placeholders), where, placeholders);
  return { sql: `${sql} ${READ_SETTINGS}`, params };
}

/** What an aggregate groups: rows holding the columns its metrics read, and its dimension values (`d0`, `d1`, ...) when `grouped`. */
interface AggregatedRows {
  readonly from: string;
  readonly grouped: boolean;
}

/**
 * What an aggregate reads: the window's events (`where`), or for the NPS metrics, which are rolling
 * 30-day figures, one row per user of each group (`NPS_PER_USER`) over each NPS event meeting the
 * conditions once for every day it counts for.
 */
function aggregatedRows(spec: AggregateSpec, conditions: string, where: string, placeholders: Placeholders): AggregatedRows {
  if (!spec.metrics.some(isNpsMetric)) return { from: `${EVENTS_TABLE} WHERE ${where}`, grouped: false };
  const byDay = spec.dimensions.some(({ source }) => source.kind === 'bucket' && source.bucket === 'day');
  const dimensions = groupedDimensions(spec.dimensions, placeholders);
  const keys = [...spec.dimensions.map((_, index) => `d${index}`), 'user_key'];
  const perUser = `SELECT ${[...dimensions, ...NPS_PER_USER].join(', ')} FROM ${rollingNpsRows(conditions, byDay)} GROUP BY ${keys.join(', ')}`;
  return { from: `(${perUser})`, grouped: true };
}

/** The rows asked for of the sorted result. */
const PAGE = 'LIMIT {max_rows:UInt64} OFFSET {offset:UInt64}';

/** The `order_by` keys, each the SQL of the field it names (`valueOf`), before the default order. */
function orderOf(orderBy: readonly SortKey[], valueOf: (name: string) => string, defaults: readonly string[]): string {
  return [...orderBy.map((key) => `${valueOf(key.name)} ${key.descending ? 'DESC' : 'ASC'}`), ...defaults].join(', ');
}

/** The account's events in the query's window: what every statement reads, before the conditions. */
const ACCOUNT_WINDOW = `account_id = {account_id:String} AND timestamp >= {start_time:DateTime64(3, 'UTC')} AND timestamp < {end_time:DateTime64(3, 'UTC')}`;

/**
 * Whether any event of the account's window has a `flow_id` the insert could not read (see
 * `STORED_FLOW_ID`), as a constant computed before the query runs. Such events are rare, and where
 * there is none the constant folds the JSON fallback away, and the query does not read `attributes`
 * for it: reading that column was 40 % of a flow funnel over 10 M events (0.9 s with the fallback,
 * 0.55 s without; the check took 80 ms). The check reads the account's window whatever the
 * conditions, so it cannot miss an event the query reads.
 */
const UNPARSED_FLOW_IDS_CHECK = `WITH (SELECT count() > 0 FROM ${EVENTS_TABLE} WHERE ${ACCOUNT_WINDOW} AND flow_id = ${UNPARSED_FLOW_ID_SQL}) AS unparsed_flow_ids`;

/** One row per event, oldest first unless `order_by` says otherwise. */
function rawRows(columns: readonly OutputField[], orderBy: readonly SortKey[], where: string, placeholders: Placeholders): string {
  const members = columns.map((column) => member(placeholders.text(column.name), columnJson(column.source, placeholders)));
  const sourceOf = (name: string) => columns.find((column) => column.name === name)!.source;
  const order = orderOf(orderBy, (name) => sortValue(sourceOf(name), placeholders), ['timestamp', 'event_id']);
  return `SELECT ${jsonObject(members)} FROM ${EVENTS_TABLE} WHERE ${where} ORDER BY ${order} ${PAGE}`;
}

/** What a raw column sorts by: the instant for `timestamp`, the text value otherwise. */
function sortValue(source: EventField, placeholders: Placeholders): string {
  if (source.kind === 'field' && source.field === 'timestamp') return source.field;
  return dimensionSql(source, placeholders);
}

/**
 * One row per combination of dimension values, sorted by `order_by`, then time buckets (oldest
 * first), then the first metric, largest first, then the other dimensions, so that the order is total
 * and a clamped result keeps the top rows. Time buckets are grouped by value and rendered as text for
 * the answer only, so that the window's buckets without events can be filled in (`zeroFilled`).
 */
function aggregateRows(
  { metrics, dimensions, orderBy, rank }: AggregateSpec,
  rows: AggregatedRows,
  where: string,
  placeholders: Placeholders,
): string {
  const dimensionValues = rows.grouped ? dimensions.map((_, index) => `d${index}`) : groupedDimensions(dimensions, placeholders);
  const metricValues = metrics.map((metric, index) => `${metricValue(metric, placeholders)} AS m${index}`);
  const buckets = dimensions.flatMap((dimension, index) => (dimension.source.kind === 'bucket' ? [`d${index}`] : []));
  const others = dimensions.flatMap((dimension, index) => (dimension.source.kind === 'bucket' ? [] : [`d${index}`]));
  const aliasOf = (name: string) => {
    const dimension = dimensions.findIndex((field) => field.name === name);
    return dimension >= 0 ? `d${dimension}` : `m${metrics.findIndex((metric) => metric.name === name)}`;
  };
  const order = orderOf(orderBy, aliasOf, [...ascending(buckets), 'm0 DESC', ...ascending(others)]);
  const groupBy = dimensions.length === 0 ? '' : `GROUP BY ${dimensions.map((_, index) => `d${index}`).join(', ')}`;
  // `rank_n` takes no NPS metric (`rankFilterOf`): `rows` is then the window's events, `WHERE` included.
  const ranked = rank === undefined ? '' : ` AND ${rankedValues(rank, metrics[0], where, placeholders)}`;
  const grouped = `SELECT ${[...dimensionValues, ...metricValues, `1 AS ${HAS_EVENTS}`].join(', ')} FROM ${rows.from}${ranked} ${groupBy}`;
  const bucket = buckets.length === 1 ? dimensions[Number(buckets[0].slice(1))] : undefined;
  const filled = bucket?.source.kind === 'bucket' ? zeroFilled(grouped, buckets[0], TIME_BUCKETS[bucket.source.bucket], others) : grouped;
  const members = [
    ...dimensions.map((dimension, index) =>
      member(placeholders.text(dimension.name), jsonOrNull(answerValue(dimension.source, `d${index}`))),
    ),
    ...metrics.map((metric, index) => member(placeholders.text(metric.name), `toString(m${index})`)),
  ];
  // Raw rows read attributes from the JSON; only a dimension reads the stored flow_id.
  const prelude = dimensions.some((dimension) => isStoredFlowId(dimension.source)) ? `${UNPARSED_FLOW_IDS_CHECK} ` : '';
  return `${prelude}SELECT ${jsonObject(members)} FROM (${filled}) ORDER BY ${order} ${PAGE}`;
}

/** A marker of the grouped rows, 0 on the rows that zero-filling adds. */
const HAS_EVENTS = 'has_events';

function ascending(aliases: readonly string[]): string[] {
  return aliases.map((alias) => `${alias} ASC`);
}

/**
 * The grouped rows with a row for every bucket of the window that has none, its metrics 0: per
 * combination of the other dimensions' values (ClickHouse fills each sorting prefix apart). A
 * combination with no events at all is no row: filling an empty result would otherwise make one of
 * empty values.
 */
function zeroFilled(grouped: string, bucketAlias: string, bucket: TimeBucketSql, others: readonly string[]): string {
  const first = bucket.of(`{start_time:DateTime64(3, 'UTC')}`);
  // The bucket of the window's last instant is the last filled: the window ends before `end_time`.
  const afterLast = `${bucket.of(`subtractMilliseconds({end_time:DateTime64(3, 'UTC')}, 1)`)} + ${bucket.step}`;
  const fill = `${bucketAlias} ASC WITH FILL FROM ${first} TO ${afterLast} STEP ${bucket.step}`;
  const filled = `SELECT * FROM (${grouped}) ORDER BY ${[...ascending(others), fill].join(', ')}`;
  if (others.length === 0) return filled;
  const combinationHasEvents = `max(${HAS_EVENTS}) OVER (PARTITION BY ${others.join(', ')})`;
  return `SELECT * FROM (SELECT *, ${combinationHasEvents} AS combination_has_events FROM (${filled})) WHERE combination_has_events = 1`;
}

/**
 * `rank_n` as a condition: the ranked dimension's value is one of the `n` with the largest (or
 * smallest) total of the first metric over the whole window, ties broken by the value.
 */
function rankedValues(rank: RankFilter, metric: Metric, where: string, placeholders: Placeholders): string {
  const value = groupValue(rank.dimension.source, placeholders);
  const n = placeholders.number(rank.n);
  const total = metricValue(metric, placeholders);
  const ranking = `SELECT ${value} AS ranked FROM ${EVENTS_TABLE} WHERE ${where} GROUP BY ranked ORDER BY ${total} ${rank.top ? 'DESC' : 'ASC'}, ranked ASC LIMIT ${n}`;
  return `${value} IN (${ranking})`;
}

/** Each dimension's value under its alias, `d0`, `d1`, ... */
function groupedDimensions(dimensions: readonly OutputField[], placeholders: Placeholders): string[] {
  return dimensions.map((dimension, index) => `${groupValue(dimension.source, placeholders)} AS d${index}`);
}

/** What a dimension groups by: a time bucket's value, the text of any other. */
function groupValue(source: EventField, placeholders: Placeholders): string {
  return source.kind === 'bucket' ? TIME_BUCKETS[source.bucket].of('timestamp') : dimensionSql(source, placeholders);
}

/** A dimension's value in the answer: a time bucket's text, any other as grouped. */
function answerValue(source: EventField, alias: string): string {
  return source.kind === 'bucket' ? TIME_BUCKETS[source.bucket].text(alias) : alias;
}

/** What a metric computes per group: the counts here, the others in `metric-sql.ts`. */
function metricValue(metric: Metric, placeholders: Placeholders): string {
  return metric.kind === 'count' ? METRIC_SQL[metric.name] : metricSql(metric, placeholders);
}

/** A dimension's value as text: `""` for an absent id or attribute field, NULL for an absent `attributes.<key>`. */
function dimensionSql(source: EventField, placeholders: Placeholders): string {
  switch (source.kind) {
    case 'bucket':
      return TIME_BUCKETS[source.bucket].text(TIME_BUCKETS[source.bucket].of('timestamp'));
    case 'attribute':
      return attributeText(placeholders.text(source.key));
    case 'attribute-field':
      if (isStoredFlowId(source)) return `ifNull(${STORED_FLOW_ID}, '')`;
      return `coalesce(${source.keys
        .map((key) =>
          attributeText(
            keyPathOf(key)
              .map((name) => placeholders.text(name))
              .join(', '),
          ),
        )
        .join(', ')}, '')`;
    case 'stored':
      return source.field;
    case 'page':
      return PAGE_PART_SQL[source.part];
    case 'field':
      return FIELD_TEXT_SQL[source.field];
  }
}

/** The event's own fields as text: the instant at the zone's offset, the attributes and context as JSON. */
const FIELD_TEXT_SQL: Record<EventRecordField, string> = {
  name: 'name',
  user_id: 'user_id',
  group_id: 'group_id',
  timestamp: ZONED_TIMESTAMP,
  attributes: 'attributes',
  context: CONTEXT_JSON_SQL,
};

/** A raw row's value as JSON text: attributes keep their JSON type. */
function columnJson(source: EventField, placeholders: Placeholders): string {
  if (source.kind === 'attribute') {
    const key = placeholders.text(source.key);
    return `if(JSONType(attributes, ${key}) = 'Null', 'null', JSONExtractRaw(attributes, ${key}))`;
  }
  if (source.kind === 'attribute-field') {
    // The JSON value of the first key the event has, `""` when it has none.
    const firstPresent = source.keys.flatMap((name) => {
      const path = keyPathOf(name)
        .map((key) => placeholders.text(key))
        .join(', ');
      return [`JSONType(attributes, ${path}) != 'Null'`, `JSONExtractRaw(attributes, ${path})`];
    });
    return `multiIf(${firstPresent.join(', ')}, '""')`;
  }
  // The attributes and the context are JSON objects already.
  if (source.kind === 'field' && (source.field === 'attributes' || source.field === 'context')) return FIELD_TEXT_SQL[source.field];
  return jsonOrNull(dimensionSql(source, placeholders));
}

/** A Nullable value as JSON: `toJSONString` of NULL is NULL (which would void the whole row's `concat`), so NULL is written `null`. */
function jsonOrNull(value: string): string {
  return `ifNull(toJSONString(${value}), 'null')`;
}

/**
 * An attribute as text, as the like family of the conditions reads it: a string as is, another value as its JSON text, NULL when
 * absent or null. `key` is its key's SQL, or the SQL of the keys of its path, comma-separated.
 */
function attributeText(key: string): string {
  const type = `JSONType(attributes, ${key})`;
  return `if(${type} = 'Null', NULL, if(${type} = 'String', JSONExtractString(attributes, ${key}), JSONExtractRaw(attributes, ${key})))`;
}

/**
 * `flow_id` as text (NULL when absent), from the column the insert fills, or from the JSON where the
 * insert could not read it (only looked for where `UNPARSED_FLOW_IDS_CHECK` found such events).
 */
const STORED_FLOW_ID = `if(unparsed_flow_ids AND flow_id = ${UNPARSED_FLOW_ID_SQL}, coalesce(${ANALYTICS_ATTRIBUTE_FIELDS[
  ANALYTICS_FLOW_FIELD
].map((key) => attributeText(`'${key}'`)).join(', ')}), flow_id)`;

/**
 * What a condition compares, as the vocabulary says (`analyticsConditionField`); `flow_id`, read from
 * the SDK's key then the snake-case one, also names the column the insert fills with that text (event-store
 * migration 6), which narrows an equality on it before any attributes are parsed.
 */
function conditionFieldOf(field: string, path: string): ConditionField {
  const compared = analyticsConditionField(field, path);
  if (field !== ANALYTICS_FLOW_FIELD || compared.kind !== 'attribute') return compared;
  return { ...compared, stored: { column: 'flow_id', unread: UNPARSED_FLOW_ID_SQL } };
}

function isStoredFlowId(source: EventField): boolean {
  return source.kind === 'attribute-field' && source.field === ANALYTICS_FLOW_FIELD;
}

function member(key: string, valueJson: string): string {
  return `toJSONString(${key}), ':', ${valueJson}`;
}

function jsonObject(members: readonly string[]): string {
  return `concat('{', ${members.join(", ',', ")}, '}')`;
}

/** Names chosen by the client, passed as `{aN:String}` placeholders beside the conditions' `pN`. */
class Placeholders {
  private count = 0;

  constructor(private readonly params: Record<string, unknown>) {}

  text(value: string): string {
    return this.placeholder(value, 'String');
  }

  number(value: number): string {
    return this.placeholder(value, 'UInt64');
  }

  private placeholder(value: unknown, type: string): string {
    const name = `a${this.count}`;
    this.count += 1;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }
}
