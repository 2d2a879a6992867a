import {
  ANALYTICS_ATTRIBUTE_FIELDS,
  ANALYTICS_CONVERSION_METRIC,
  ANALYTICS_MAX_FIELDS,
  ANALYTICS_METRICS,
  ANALYTICS_NPS_METRICS,
  ANALYTICS_STATISTICS,
  ANALYTICS_TIME_BUCKETS,
  type AnalyticsMetric,
  type AnalyticsNpsMetric,
  type AnalyticsStatistic,
} from '@guidepost/contracts-http';
import { attributeKeyOf, invalid, listOf } from './analytics-names';

/** A metric asked for, by the name it was asked by (the key of its value in each row). */
export type Metric =
  | { readonly kind: 'count'; readonly name: AnalyticsMetric }
  | { readonly kind: 'conversion'; readonly name: typeof ANALYTICS_CONVERSION_METRIC }
  | { readonly kind: 'nps'; readonly name: AnalyticsNpsMetric }
  | {
      readonly kind: 'statistic';
      readonly name: string;
      readonly statistic: AnalyticsStatistic;
      /** The attribute keys of its operand: an event's value is that of the first key it has. */
      readonly keys: readonly string[];
    };

/** What the NPS rules look at besides the metrics: the names of the dimensions and the conditions as sent. */
export interface MetricContext {
  readonly dimensions: readonly string[];
  readonly conditions: readonly unknown[];
}

const COUNTS = Object.keys(ANALYTICS_METRICS) as AnalyticsMetric[];
const NPS = Object.keys(ANALYTICS_NPS_METRICS) as AnalyticsNpsMetric[];
const STATISTICS = Object.keys(ANALYTICS_STATISTICS) as AnalyticsStatistic[];
const STATISTIC_NAME = new RegExp(`^(${STATISTICS.join('|')})_(.+)$`);
const NAMED = [...COUNTS, ANALYTICS_CONVERSION_METRIC, ...NPS];
const FORMS = STATISTICS.map((statistic) => `${statistic}_<field>`).join(', ');
const ATTRIBUTE_FIELDS = Object.keys(ANALYTICS_ATTRIBUTE_FIELDS);

/** The one dimension `nps_computed_score` takes, and the only time bucket of the NPS metrics. */
const NPS_DAY = 'day' satisfies keyof typeof ANALYTICS_TIME_BUCKETS;
const OTHER_TIME_BUCKETS = Object.keys(ANALYTICS_TIME_BUCKETS).filter((bucket) => bucket !== NPS_DAY);
/** What the engine names its raw NPS columns, which fail there: the fields that work instead. */
const RAW_NPS_FIELDS: Record<string, string> = { nps_raw_score: 'score', nps_feedback: 'feedback' };

/**
 * The metrics of a spec, each resolved, with the NPS rules of the real API checked: a 400 naming the
 * metric (or dimension) at fault otherwise.
 */
export function metricsOf(requested: readonly string[], context: MetricContext): Metric[] {
  if (requested.length === 0) throw invalid('metrics', `must name at least one metric: ${listOf(NAMED)} or ${FORMS}`);
  if (requested.length > ANALYTICS_MAX_FIELDS) throw invalid('metrics', `must name at most ${ANALYTICS_MAX_FIELDS}`);
  const metrics = requested.map((name, index) => {
    const path = `metrics[${index}]`;
    if (requested.indexOf(name) !== index) throw invalid(path, `${JSON.stringify(name)} is already asked for`);
    return metricOf(name, path);
  });
  if (metrics.some(isNpsMetric)) checkNpsRules(metrics, context);
  return metrics;
}

export function isNpsMetric(metric: Metric): metric is Extract<Metric, { kind: 'nps' }> {
  return metric.kind === 'nps';
}

/**
 * The field that works in place of a raw NPS column of the engine (`nps_raw_score`: `score`), as a 400
 * at `path`; nothing for any other name.
 */
export function refuseRawNpsField(name: string, path: string): void {
  const field = RAW_NPS_FIELDS[name];
  if (field !== undefined) {
    throw invalid(
      path,
      `${JSON.stringify(name)} is the engine's raw NPS column, which the real API cannot answer; use ${JSON.stringify(field)}`,
    );
  }
}

function metricOf(name: string, path: string): Metric {
  if ((COUNTS as string[]).includes(name)) return { kind: 'count', name: name as AnalyticsMetric };
  if (name === ANALYTICS_CONVERSION_METRIC) return { kind: 'conversion', name };
  if ((NPS as string[]).includes(name)) return { kind: 'nps', name: name as AnalyticsNpsMetric };
  if (name === 'nps_respondents') {
    throw invalid(
      path,
      '"nps_respondents" is not a metric (the real API fails on it): respondents are nps_promoters + nps_neutrals + ' +
        'nps_detractors, so ask for those three and add them',
    );
  }
  const statistic = STATISTIC_NAME.exec(name);
  if (statistic) return { kind: 'statistic', name, statistic: statistic[1] as AnalyticsStatistic, keys: operandKeysOf(statistic[2], path) };
  throw invalid(path, `unknown metric ${JSON.stringify(name)}; use one of ${listOf(NAMED)} or ${FORMS}`);
}

/** The keys a statistic's field reads: an attribute field's, or the key of `attributes.<key>`. */
function operandKeysOf(field: string, path: string): readonly string[] {
  if (Object.hasOwn(ANALYTICS_ATTRIBUTE_FIELDS, field)) return ANALYTICS_ATTRIBUTE_FIELDS[field];
  const key = attributeKeyOf(field, path);
  if (key !== undefined) return [key];
  throw invalid(path, `unknown field ${JSON.stringify(field)}; a statistic reads one of ${listOf(ATTRIBUTE_FIELDS)} or attributes.<key>`);
}

function checkNpsRules(metrics: readonly Metric[], context: MetricContext): void {
  const first = metrics.findIndex(isNpsMetric);
  const other = metrics.findIndex((metric) => !isNpsMetric(metric));
  if (other >= 0) {
    throw invalid(
      `metrics[${other}]`,
      `${JSON.stringify(metrics[other].name)} cannot be asked beside NPS metrics, which are rolling 30-day figures over ` +
        'other events; ask for it in a spec of its own',
    );
  }
  if (!context.conditions.some(namesSurvey)) {
    throw invalid(
      `metrics[${first}]`,
      'NPS metrics require a `flow_id` condition naming the survey: add ["flow_id", "==", "<the survey\'s flow id>"] ' +
        '(or "in" with a list of them) to conditions',
    );
  }
  const bucket = context.dimensions.findIndex((dimension) => OTHER_TIME_BUCKETS.includes(dimension));
  if (bucket >= 0) {
    throw invalid(
      `dimensions[${bucket}]`,
      `NPS metrics are rolling 30-day figures as of a day: group them by "day", or by no time bucket for the figures as ` +
        "of the window's last day",
    );
  }
  const score = metrics.findIndex((metric) => metric.name === 'nps_computed_score');
  if (score < 0) return;
  if (context.dimensions.length !== 1 || context.dimensions[0] !== NPS_DAY) {
    throw invalid(`metrics[${score}]`, `"nps_computed_score" is a daily series: it takes exactly the dimensions ["${NPS_DAY}"]`);
  }
  const submitted = metrics.findIndex((metric) => metric.name === 'nps_scores_submitted');
  if (submitted >= 0) {
    throw invalid(
      `metrics[${submitted}]`,
      '"nps_scores_submitted" cannot be asked beside "nps_computed_score" (the real API computes them apart); ask for it ' +
        'in a spec of its own',
    );
  }
}

/** A top-level condition that names the survey: `["flow_id", "==", id]` or `["flow_id", "in", [ids]]`. */
function namesSurvey(condition: unknown): boolean {
  return Array.isArray(condition) && condition[0] === 'flow_id' && (condition[1] === '==' || condition[1] === 'in');
}
