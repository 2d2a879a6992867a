import { type Static, Type } from '@sinclair/typebox';
import {
  ANALYTICS_EVENT_ALIAS,
  ANALYTICS_FIELDS,
  ANALYTICS_MAX_FIELDS,
  ANALYTICS_QUERY_FIELDS,
  ANALYTICS_SYNC_MAX_DAYS,
  ANALYTICS_TIME_BUCKETS,
  type AnalyticsField,
  type AnalyticsFieldReading,
  type AnalyticsPagePart,
  AnalyticsQuerySchema,
  type AnalyticsTimeBucket,
  EVENT_COLUMN_FIELDS,
} from '@guidepost/contracts-http';
import { compileValidator } from '@guidepost/platform-http';
import { rangeBoundField } from '../../events/application/instant-field';
import { ianaZone } from '../../events/domain/time-zone';
import { compileExportConditions, type ConditionField } from '../../events/domain/export-conditions';
import { withinStorableRange } from '../../events/domain/storable-event';
import { CONTEXT_JSON_SQL, PAGE_PART_SQL } from '../domain/analytics-field-sql';
import { isNpsMetric, type Metric, metricsOf, refuseRawNpsField } from './analytics-metrics';
import { attributeKeyOf, invalid, listOf } from './analytics-names';

/** What a field of the vocabulary reads as the event stores it (`ANALYTICS_FIELDS`: `column` and `record`). */
export type EventRecordField =
  Extract<AnalyticsFieldReading, { column: unknown }>['column'] | Extract<AnalyticsFieldReading, { record: unknown }>['record'];

/**
 * What a dimension or a column reads from an event: one of its fields, a time bucket, a field of the
 * real API read from the first of its attribute keys the event has (each key a dotted path), a column
 * the store computes at insert (named as the field), a part of the event's page, or an attribute by its key.
 */
export type EventField =
  | { readonly kind: 'field'; readonly field: EventRecordField }
  | { readonly kind: 'bucket'; readonly bucket: AnalyticsTimeBucket }
  | { readonly kind: 'attribute-field'; readonly field: AnalyticsField; readonly keys: readonly string[] }
  | { readonly kind: 'stored'; readonly field: AnalyticsField }
  | { readonly kind: 'page'; readonly part: AnalyticsPagePart }
  | { readonly kind: 'attribute'; readonly key: string };

/** A named output field of a row: the name the client asked for and what it reads. */
export interface OutputField {
  readonly name: string;
  readonly source: EventField;
}

/** What a query selects, shared by both shapes of answer. */
interface Selection {
  /** The request's conditions, `event` read as `name`: `compileExportConditions` checks and compiles them. */
  readonly conditions: readonly unknown[];
  readonly startTime: Date;
  readonly endTime: Date;
  /** The IANA zone of the time buckets and of raw timestamps. */
  readonly timeZone: string;
  /** Sort keys before the default order, each an output field or metric by the name it was asked by. */
  readonly orderBy: readonly SortKey[];
  /** Most rows asked for (the server's limit applies on top). */
  readonly limit: number | undefined;
  /** Rows of the sorted result skipped before the first one answered. */
  readonly offset: number;
}

export interface SortKey {
  readonly name: string;
  readonly descending: boolean;
}

/** `rank_n`: only the `n` values of one dimension with the largest (`top`) or smallest totals of the first metric. */
export interface RankFilter {
  /** The ranked dimension, one of the spec's. */
  readonly dimension: OutputField;
  readonly n: number;
  readonly top: boolean;
}

export type AnalyticsSpec =
  | (Selection & {
      readonly shape: 'aggregate';
      readonly metrics: readonly Metric[];
      readonly dimensions: readonly OutputField[];
      readonly rank: RankFilter | undefined;
    })
  | (Selection & { readonly shape: 'raw'; readonly columns: readonly OutputField[] });

const names = Type.Array(Type.String());
/**
 * The body's shape only: the names and instants are taken as any text here and checked by
 * `analyticsSpecOf`, whose 400 names the item at fault (`metrics[1]: unknown metric "clicks"...`).
 */
const AnalyticsRequestSchema = Type.Object(
  {
    ...AnalyticsQuerySchema.properties,
    metrics: Type.Optional(names),
    dimensions: Type.Optional(names),
    columns: Type.Optional(names),
    conditions: Type.Optional(Type.Array(Type.Unknown())),
    start_time: Type.String(),
    end_time: Type.String(),
    timezone: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
/** A query body as sent, its shape checked: what an export job carries and runs later. */
export type AnalyticsRequest = Static<typeof AnalyticsRequestSchema>;
const parseBody = compileValidator(AnalyticsRequestSchema);

const BUCKETS = Object.keys(ANALYTICS_TIME_BUCKETS) as AnalyticsTimeBucket[];
const EVENT_ALIAS = ANALYTICS_EVENT_ALIAS;
const DIMENSION_NAMES = [...ANALYTICS_QUERY_FIELDS, ...BUCKETS];
const COLUMN_NAMES = ANALYTICS_QUERY_FIELDS;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The most a zone's clocks move back at once when daylight saving time ends. */
const DAYLIGHT_SAVING_SHIFT_MS = 60 * 60 * 1000;

/**
 * A query body, validated and resolved: exactly one of `metrics` and `columns`, known names each
 * once, a known time zone, a window that ends after it starts, sort keys among the fields selected.
 * The conditions are left to `compileExportConditions`, which names the condition at fault. Throws a
 * 400 naming the field. `account_id` is ignored: the account is the path's.
 */
export function analyticsSpecOf(body: unknown): AnalyticsSpec {
  return specOf(parseBody(body));
}

/**
 * A query body a synchronous query answers (`analyticsSpecOf`): its window spans at most `ANALYTICS_SYNC_MAX_DAYS` days (wider
 * ones are what exports are for); otherwise a 400 that names the window, as the real API's does.
 */
export function syncAnalyticsSpecOf(body: unknown): AnalyticsSpec {
  const spec = analyticsSpecOf(body);
  // Whole days of a zone that leaves daylight saving time in the window last an hour longer than the days they are.
  const days = Math.ceil((spec.endTime.getTime() - spec.startTime.getTime() - DAYLIGHT_SAVING_SHIFT_MS) / DAY_MS);
  if (days > ANALYTICS_SYNC_MAX_DAYS) {
    throw invalid(
      'end_time',
      `time range of ${days} days exceeds the ${ANALYTICS_SYNC_MAX_DAYS}-day maximum for this query shape; ` +
        'narrow start_time and end_time, or run the spec as an export (POST /analytics/exports)',
    );
  }
  return spec;
}

/**
 * A body worth a job: everything `analyticsSpecOf` checks and the conditions too, so that an export
 * is refused with its 400 at once rather than failing later; the job keeps the request as sent.
 */
export function checkedAnalyticsRequest(body: unknown): AnalyticsRequest {
  const request = parseBody(body);
  compileExportConditions(specOf(request).conditions, analyticsConditionField);
  return request;
}

/**
 * What a condition of a query compares: the event's columns (`timestamp` as an instant), the fields of
 * the vocabulary (a field read from attribute keys as the JSON value of its first key an event has, any
 * other as the text a row shows) and `attributes.<key>`. Any other name is a 400 naming it: read as an
 * attribute of that name, as exports do, a field the real API knows but spelled otherwise here would
 * silently match nothing.
 */
export function analyticsConditionField(field: string, path: string): ConditionField {
  if ((EVENT_COLUMN_FIELDS as readonly string[]).includes(field))
    return { kind: 'column', column: field as (typeof EVENT_COLUMN_FIELDS)[number] };
  const key = attributeKeyOf(field, path);
  if (key !== undefined) return { kind: 'attribute', keys: [[key]] };
  if (!Object.hasOwn(ANALYTICS_FIELDS, field)) {
    refuseRawNpsField(field, path);
    throw invalid(path, `unknown field ${JSON.stringify(field)}; use one of ${listOf(ANALYTICS_QUERY_FIELDS)} or attributes.<key>`);
  }
  const source = vocabularyFieldOf(field as AnalyticsField, path);
  if (source.kind === 'attribute-field') return { kind: 'attribute', keys: source.keys.map(keyPathOf) };
  if (source.kind === 'stored') return { kind: 'text', name: field, sql: source.field };
  if (source.kind === 'page') return { kind: 'text', name: field, sql: PAGE_PART_SQL[source.part] };
  // The event's columns are the export grammar's (above): what is left is its whole attributes or context, as JSON text.
  return { kind: 'text', name: field, sql: field === 'context' ? CONTEXT_JSON_SQL : 'attributes' };
}

/** A key of the vocabulary as the path it names: dots lead into nested objects (no SDK key holds one). */
export function keyPathOf(key: string): string[] {
  return key.split('.');
}

/** What a field of the vocabulary reads; a 400 at `path` for a field this store cannot answer. */
function vocabularyFieldOf(field: AnalyticsField, path: string): EventField {
  const reads: AnalyticsFieldReading = ANALYTICS_FIELDS[field].reads;
  if ('unavailable' in reads) throw invalid(path, `${JSON.stringify(field)} ${reads.unavailable}`);
  if ('column' in reads) return { kind: 'field', field: reads.column };
  if ('record' in reads) return { kind: 'field', field: reads.record };
  if ('page' in reads) return { kind: 'page', part: reads.page };
  return reads.stored ? { kind: 'stored', field } : { kind: 'attribute-field', field, keys: reads.keys };
}

function specOf(request: AnalyticsRequest): AnalyticsSpec {
  const timeZone = request.timezone ?? 'UTC';
  const offsetAt = ianaZone(timeZone);
  if (offsetAt === undefined)
    throw invalid('timezone', `must be an IANA time zone name such as "UTC" or "America/New_York", got ${JSON.stringify(timeZone)}`);
  const zone = { field: 'timezone', offsetAt };
  const start = rangeBoundField('start_time', request.start_time, zone, 'start');
  const end = rangeBoundField('end_time', request.end_time, zone, 'end');
  if (end <= start) throw invalid('end_time', `must be after start_time (${start.toISOString()} >= ${end.toISOString()})`);
  const selection = {
    conditions: (request.conditions ?? []).map(withNameForEvent),
    startTime: withinStorableRange(start),
    endTime: withinStorableRange(end),
    timeZone,
    limit: request.limit,
    offset: request.offset ?? 0,
  };
  if (request.metrics !== undefined && request.columns !== undefined) {
    throw invalid('columns', 'give either metrics (aggregate rows, with dimensions) or columns (raw rows), not both');
  }
  if (request.columns !== undefined) {
    if (request.dimensions !== undefined) throw invalid('dimensions', 'dimensions group metrics; raw rows (columns) take none');
    if (request.rank_n !== undefined) throw invalid('rank_n', 'ranks dimension values by a metric; raw rows (columns) take none');
    const columns = fieldsOf(request.columns, 'columns', COLUMN_NAMES);
    return { ...selection, shape: 'raw', columns, orderBy: sortKeysOf(request.order_by, namesOf(columns)) };
  }
  if (request.metrics === undefined)
    throw invalid('metrics', 'is required unless columns is given: give metrics (with dimensions) or columns');
  const dimensions = fieldsOf(request.dimensions ?? [], 'dimensions', DIMENSION_NAMES);
  const metrics = metricsOf(request.metrics, { dimensions: namesOf(dimensions), conditions: selection.conditions });
  return {
    ...selection,
    shape: 'aggregate',
    metrics,
    dimensions,
    orderBy: sortKeysOf(request.order_by, [...namesOf(dimensions), ...metrics.map((metric) => metric.name)]),
    rank: request.rank_n && rankFilterOf(request.rank_n, dimensions, metrics),
  };
}

/** `rank_n` over one of the spec's dimensions (`name` and `event` are one), never a time bucket. */
function rankFilterOf(
  rankN: NonNullable<AnalyticsRequest['rank_n']>,
  dimensions: readonly OutputField[],
  metrics: readonly Metric[],
): RankFilter {
  if (metrics.some(isNpsMetric)) {
    throw invalid('rank_n', 'NPS metrics are figures of one survey by day and take no rank_n; drop rank_n, or rank other metrics');
  }
  const ranked = rankN.dimension === EVENT_ALIAS ? 'name' : rankN.dimension;
  const dimension = dimensions.find((field) => field.name === ranked || (field.name === EVENT_ALIAS && ranked === 'name'));
  const rankable = namesOf(dimensions.filter((field) => field.source.kind !== 'bucket'));
  if (dimension === undefined) {
    throw invalid(
      'rank_n.dimension',
      `${JSON.stringify(rankN.dimension)} is not a dimension of the spec; rank one of ${rankable.length > 0 ? listOf(rankable) : 'its dimensions (add the one to rank to dimensions)'}`,
    );
  }
  if (dimension.source.kind === 'bucket') {
    throw invalid(
      'rank_n.dimension',
      `${JSON.stringify(rankN.dimension)} is a time bucket: buckets are not ranked; rank another dimension`,
    );
  }
  return { dimension, n: rankN.n, top: rankN.direction !== 'bottom' };
}

function namesOf(fields: readonly OutputField[]): string[] {
  return fields.map((field) => field.name);
}

/** `order_by` as sort keys, each naming a field of the answer (`order_by[0][0]: ...` otherwise). */
function sortKeysOf(orderBy: AnalyticsRequest['order_by'], selected: readonly string[]): SortKey[] {
  return (orderBy ?? []).map(([name, direction], index) => {
    if (!selected.includes(name)) {
      throw invalid(`order_by[${index}][0]`, `${JSON.stringify(name)} is not a field of the answer; sort by one of ${listOf(selected)}`);
    }
    return { name, descending: direction === 'desc' };
  });
}

/** A condition (or conjunction) with its `event` fields named `name`, the column they mean. */
function withNameForEvent(condition: unknown): unknown {
  if (!Array.isArray(condition) || condition.length === 0) return condition;
  const [head, ...rest] = condition as unknown[];
  if (head === 'and' || head === 'or') return [head, ...rest.map(withNameForEvent)];
  return head === EVENT_ALIAS ? ['name', ...rest] : condition;
}

function fieldsOf(requested: readonly string[], list: 'dimensions' | 'columns', known: readonly string[]): OutputField[] {
  if (list === 'columns' && requested.length === 0) throw invalid(list, 'must name at least one column');
  if (requested.length > ANALYTICS_MAX_FIELDS) throw invalid(list, `must name at most ${ANALYTICS_MAX_FIELDS}`);
  return requested.map((name, index) => {
    const path = `${list}[${index}]`;
    if (requested.indexOf(name) !== index) throw invalid(path, `${JSON.stringify(name)} is already asked for`);
    return { name, source: sourceOf(name, path, list, known) };
  });
}

function sourceOf(name: string, path: string, list: string, known: readonly string[]): EventField {
  const key = attributeKeyOf(name, path);
  if (key !== undefined) return { kind: 'attribute', key };
  if (name === EVENT_ALIAS) return { kind: 'field', field: 'name' };
  if ((BUCKETS as string[]).includes(name) && known.includes(name)) return { kind: 'bucket', bucket: name as AnalyticsTimeBucket };
  if (Object.hasOwn(ANALYTICS_FIELDS, name)) return vocabularyFieldOf(name as AnalyticsField, path);
  refuseRawNpsField(name, path);
  throw invalid(
    path,
    `unknown ${list === 'columns' ? 'column' : 'dimension'} ${JSON.stringify(name)}; use one of ${listOf(known)} or attributes.<key>`,
  );
}
