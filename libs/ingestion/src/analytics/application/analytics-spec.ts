import { type Static, Type } from '@sinclair/typebox';
import {
  ANALYTICS_ATTRIBUTE_PREFIX,
  ANALYTICS_EVENT_FIELDS,
  ANALYTICS_EXTRA_COLUMNS,
  ANALYTICS_FLOW_ATTRIBUTE,
  ANALYTICS_MAX_FIELDS,
  ANALYTICS_METRICS,
  ANALYTICS_TIME_BUCKETS,
  type AnalyticsMetric,
  AnalyticsQuerySchema,
  type AnalyticsTimeBucket,
  textProblem,
} from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { compileValidator } from '@guidepost/platform-http';
import { instantField } from '../../events/application/instant-field';
import { compileExportConditions } from '../../events/domain/export-conditions';
import { withinStorableRange } from '../../events/domain/storable-event';

/** What a dimension or a column reads from an event. */
export type EventField =
  | { readonly kind: 'field'; readonly field: (typeof ANALYTICS_EVENT_FIELDS)[number] | (typeof ANALYTICS_EXTRA_COLUMNS)[number] }
  | { readonly kind: 'bucket'; readonly bucket: AnalyticsTimeBucket }
  | { readonly kind: 'attribute'; readonly key: string };

/** A named output field of a row: the name the client asked for and what it reads. */
export interface OutputField {
  readonly name: string;
  readonly source: EventField;
}

/** What a query selects, shared by both shapes of answer. */
interface Selection {
  /** The request's conditions as sent: `compileExportConditions` checks and compiles them. */
  readonly conditions: readonly unknown[];
  readonly startTime: Date;
  readonly endTime: Date;
  /** Most rows asked for (the server's limit applies on top). */
  readonly limit: number | undefined;
}

export type AnalyticsSpec =
  | (Selection & { readonly shape: 'aggregate'; readonly metrics: readonly AnalyticsMetric[]; readonly dimensions: readonly OutputField[] })
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
  },
  { additionalProperties: false },
);
/** A query body as sent, its shape checked: what an export job carries and runs later. */
export type AnalyticsRequest = Static<typeof AnalyticsRequestSchema>;
const parseBody = compileValidator(AnalyticsRequestSchema);

const METRICS = Object.keys(ANALYTICS_METRICS) as AnalyticsMetric[];
const BUCKETS = Object.keys(ANALYTICS_TIME_BUCKETS) as AnalyticsTimeBucket[];
const DIMENSION_NAMES = [...ANALYTICS_EVENT_FIELDS, ANALYTICS_FLOW_ATTRIBUTE, ...BUCKETS];
const COLUMN_NAMES = [...ANALYTICS_EVENT_FIELDS, ...ANALYTICS_EXTRA_COLUMNS, ANALYTICS_FLOW_ATTRIBUTE];

/**
 * A query body, validated and resolved: exactly one of `metrics` and `columns`, known names each
 * once, RFC 3339 instants with `end_time` after `start_time`. The conditions are left to
 * `compileExportConditions`, which names the condition at fault. Throws a 400 naming the field.
 */
export function analyticsSpecOf(body: unknown): AnalyticsSpec {
  return specOf(parseBody(body));
}

/**
 * A body worth a job: everything `analyticsSpecOf` checks and the conditions too, so that an export
 * is refused with its 400 at once rather than failing later; the job keeps the request as sent.
 */
export function checkedAnalyticsRequest(body: unknown): AnalyticsRequest {
  const request = parseBody(body);
  compileExportConditions(specOf(request).conditions);
  return request;
}

function specOf(request: AnalyticsRequest): AnalyticsSpec {
  const start = instantField('start_time', request.start_time);
  const end = instantField('end_time', request.end_time);
  if (end <= start) throw invalid('end_time', `must be after start_time (${start.toISOString()} >= ${end.toISOString()})`);
  const selection: Selection = {
    conditions: request.conditions ?? [],
    startTime: withinStorableRange(start),
    endTime: withinStorableRange(end),
    limit: request.limit,
  };
  if (request.metrics !== undefined && request.columns !== undefined) {
    throw invalid('columns', 'give either metrics (aggregate rows, with dimensions) or columns (raw rows), not both');
  }
  if (request.columns !== undefined) {
    if (request.dimensions !== undefined) throw invalid('dimensions', 'dimensions group metrics; raw rows (columns) take none');
    return { ...selection, shape: 'raw', columns: fieldsOf(request.columns, 'columns', COLUMN_NAMES) };
  }
  if (request.metrics === undefined)
    throw invalid('metrics', 'is required unless columns is given: give metrics (with dimensions) or columns');
  return {
    ...selection,
    shape: 'aggregate',
    metrics: metricsOf(request.metrics),
    dimensions: fieldsOf(request.dimensions ?? [], 'dimensions', DIMENSION_NAMES),
  };
}

function metricsOf(metrics: readonly string[]): AnalyticsMetric[] {
  if (metrics.length === 0) throw invalid('metrics', `must name at least one metric: ${listOf(METRICS)}`);
  metrics.forEach((metric, index) => {
    if (!(METRICS as string[]).includes(metric))
      throw invalid(`metrics[${index}]`, `unknown metric ${JSON.stringify(metric)}; use one of ${listOf(METRICS)}`);
    if (metrics.indexOf(metric) !== index) throw invalid(`metrics[${index}]`, `${JSON.stringify(metric)} is already asked for`);
  });
  return metrics as AnalyticsMetric[];
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
  if (name.startsWith(ANALYTICS_ATTRIBUTE_PREFIX) && name.length > ANALYTICS_ATTRIBUTE_PREFIX.length) {
    const problem = textProblem(name);
    if (problem) throw invalid(path, problem);
    return { kind: 'attribute', key: name.slice(ANALYTICS_ATTRIBUTE_PREFIX.length) };
  }
  if (!known.includes(name)) {
    throw invalid(
      path,
      `unknown ${list === 'columns' ? 'column' : 'dimension'} ${JSON.stringify(name)}; use one of ${listOf(known)} or attributes.<key>`,
    );
  }
  if (name === ANALYTICS_FLOW_ATTRIBUTE) return { kind: 'attribute', key: ANALYTICS_FLOW_ATTRIBUTE };
  if ((BUCKETS as string[]).includes(name)) return { kind: 'bucket', bucket: name as AnalyticsTimeBucket };
  return { kind: 'field', field: name as (typeof ANALYTICS_EVENT_FIELDS)[number] };
}

function listOf(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

function invalid(path: string, reason: string): DomainError {
  return new DomainError('invalid_request', `${path}: ${reason}`);
}
