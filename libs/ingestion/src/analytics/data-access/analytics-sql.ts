import { ANALYTICS_FLOW_ATTRIBUTE, type AnalyticsMetric, type AnalyticsTimeBucket } from '@guidepost/contracts-http';
import { compileExportConditions } from '../../events/domain/export-conditions';
import { dateTime64Param } from '../../events/domain/instant';
import { READ_SETTINGS, RENDERED_TIMESTAMP, zoneParams } from '../../events/data-access/event-sql';
import { EVENTS_TABLE } from '../../events/data-access/clickhouse-event-store.adapter';
import { UNPARSED_FLOW_ID_SQL } from '../../events/data-access/clickhouse-migrations';
import type { AnalyticsSpec, EventField, OutputField } from '../application/analytics-spec';

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
};

/** Time buckets in UTC, rendered as the text of the answer. */
const BUCKET_SQL: Record<AnalyticsTimeBucket, string> = {
  hour: "formatDateTime(toStartOfHour(timestamp), '%Y-%m-%dT%H:00:00Z')",
  day: 'toString(toDate(timestamp))',
  week: 'toString(toMonday(timestamp))',
  month: "formatDateTime(timestamp, '%Y-%m')",
};

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
  const conditions = compileExportConditions(spec.conditions);
  const params: Record<string, unknown> = {
    ...conditions.params,
    account_id: accountId,
    start_time: dateTime64Param(spec.startTime),
    end_time: dateTime64Param(spec.endTime),
    max_rows: maxRows,
    ...zoneParams(0),
  };
  const placeholders = new Placeholders(params);
  const where = `${ACCOUNT_WINDOW} AND (${conditions.sql})`;
  const sql =
    spec.shape === 'raw' ? rawRows(spec.columns, where, placeholders) : aggregateRows(spec.metrics, spec.dimensions, where, placeholders);
  return { sql: `${sql} ${READ_SETTINGS}`, params };
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

/** One row per event, oldest first. */
function rawRows(columns: readonly OutputField[], where: string, placeholders: Placeholders): string {
  const members = columns.map((column) => member(placeholders.text(column.name), columnJson(column.source, placeholders)));
  return `SELECT ${jsonObject(members)} FROM ${EVENTS_TABLE} WHERE ${where} ORDER BY timestamp, event_id LIMIT {max_rows:UInt64}`;
}

/**
 * One row per combination of dimension values: time buckets first (oldest first), then the first
 * metric, largest first, then the other dimensions, so that the order is total and a clamped result
 * keeps the top rows.
 */
function aggregateRows(
  metrics: readonly AnalyticsMetric[],
  dimensions: readonly OutputField[],
  where: string,
  placeholders: Placeholders,
): string {
  const dimensionValues = dimensions.map((dimension, index) => `${dimensionSql(dimension.source, placeholders)} AS d${index}`);
  const metricValues = metrics.map((metric, index) => `${METRIC_SQL[metric]} AS m${index}`);
  const buckets = dimensions.flatMap((dimension, index) => (dimension.source.kind === 'bucket' ? [`d${index} ASC`] : []));
  const others = dimensions.flatMap((dimension, index) => (dimension.source.kind === 'bucket' ? [] : [`d${index} ASC`]));
  const order = [...buckets, 'm0 DESC', ...others].join(', ');
  const groupBy = dimensions.length === 0 ? '' : `GROUP BY ${dimensions.map((_, index) => `d${index}`).join(', ')}`;
  const members = [
    ...dimensions.map((dimension, index) => member(placeholders.text(dimension.name), jsonOrNull(`d${index}`))),
    ...metrics.map((metric, index) => member(placeholders.text(metric), `toString(m${index})`)),
  ];
  // Raw rows read attributes from the JSON; only a dimension reads the stored flow_id.
  const prelude = dimensions.some((dimension) => isStoredFlowId(dimension.source)) ? `${UNPARSED_FLOW_IDS_CHECK} ` : '';
  return (
    `${prelude}SELECT ${jsonObject(members)} FROM (SELECT ${[...dimensionValues, ...metricValues].join(', ')} ` +
    `FROM ${EVENTS_TABLE} WHERE ${where} ${groupBy} ORDER BY ${order} LIMIT {max_rows:UInt64}) ORDER BY ${order}`
  );
}

/** A dimension's value: text, or NULL for an absent id or attribute. */
function dimensionSql(source: EventField, placeholders: Placeholders): string {
  switch (source.kind) {
    case 'bucket':
      return BUCKET_SQL[source.bucket];
    case 'attribute':
      return isStoredFlowId(source) ? STORED_FLOW_ID : attributeText(placeholders.text(source.key));
    case 'field':
      return source.field === 'name' ? 'name' : `nullIf(${source.field}, '')`;
  }
}

/** A raw row's value as JSON text: attributes keep their JSON type. */
function columnJson(source: EventField, placeholders: Placeholders): string {
  if (source.kind === 'attribute') {
    const key = placeholders.text(source.key);
    return `if(JSONType(attributes, ${key}) = 'Null', 'null', JSONExtractRaw(attributes, ${key}))`;
  }
  if (source.kind === 'field' && source.field === 'timestamp') return `toJSONString(${RENDERED_TIMESTAMP})`;
  if (source.kind === 'field' && source.field === 'attributes') return 'attributes';
  return jsonOrNull(dimensionSql(source, placeholders));
}

/** A Nullable value as JSON: `toJSONString` of NULL is NULL (which would void the whole row's `concat`), so NULL is written `null`. */
function jsonOrNull(value: string): string {
  return `ifNull(toJSONString(${value}), 'null')`;
}

/** An attribute as text, as the like family of the conditions reads it: a string as is, another value as its JSON text, NULL when absent or null. */
function attributeText(key: string): string {
  const type = `JSONType(attributes, ${key})`;
  return `if(${type} = 'Null', NULL, if(${type} = 'String', JSONExtractString(attributes, ${key}), JSONExtractRaw(attributes, ${key})))`;
}

/**
 * `attributes.flow_id` as text, from the column the insert fills, or from the JSON where the insert
 * could not read it (only looked for where `UNPARSED_FLOW_IDS_CHECK` found such events).
 */
const STORED_FLOW_ID = `if(unparsed_flow_ids AND flow_id = ${UNPARSED_FLOW_ID_SQL}, ${attributeText(`'${ANALYTICS_FLOW_ATTRIBUTE}'`)}, flow_id)`;

function isStoredFlowId(source: EventField): boolean {
  return source.kind === 'attribute' && source.key === ANALYTICS_FLOW_ATTRIBUTE;
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
    const name = `a${this.count}`;
    this.count += 1;
    this.params[name] = value;
    return `{${name}:String}`;
  }
}
