import { DomainError } from '@guidepost/platform-errors';
import { analyticsSpecOf } from './analytics-spec';

const WINDOW = { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-02T00:00:00Z' };
const SURVEY = ['flow_id', '==', 'nps-1'];

function detailOf(body: object): string {
  try {
    analyticsSpecOf({ ...WINDOW, ...body });
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_request') return error.detail;
    throw error;
  }
  throw new Error('the body was accepted');
}

function metricsOf(body: object): unknown {
  const spec = analyticsSpecOf({ ...WINDOW, ...body });
  if (spec.shape !== 'aggregate') throw new Error('not an aggregate');
  return spec.metrics;
}

describe('analytics metrics', () => {
  it('resolves counts, conversion, NPS metrics and statistics over attribute fields or attributes.<key>', () => {
    expect(metricsOf({ metrics: ['events', 'conversion', 'avg_score', 'p99_attributes.load ms'] })).toEqual([
      { kind: 'count', name: 'events' },
      { kind: 'conversion', name: 'conversion' },
      { kind: 'statistic', name: 'avg_score', statistic: 'avg', keys: ['score'] },
      { kind: 'statistic', name: 'p99_attributes.load ms', statistic: 'p99', keys: ['load ms'] },
    ]);
    expect(metricsOf({ metrics: ['median_step_id', 'p90_flow_version'] })).toEqual([
      { kind: 'statistic', name: 'median_step_id', statistic: 'median', keys: ['stepId', 'step_id'] },
      { kind: 'statistic', name: 'p90_flow_version', statistic: 'p90', keys: ['flowVersion', 'flow_version'] },
    ]);
    expect(
      metricsOf({
        metrics: ['nps_computed_score', 'nps_promoters', 'nps_neutrals', 'nps_detractors'],
        dimensions: ['day'],
        conditions: [SURVEY],
      }),
    ).toEqual([
      { kind: 'nps', name: 'nps_computed_score' },
      { kind: 'nps', name: 'nps_promoters' },
      { kind: 'nps', name: 'nps_neutrals' },
      { kind: 'nps', name: 'nps_detractors' },
    ]);
  });

  it('takes the NPS counts by any dimension but other time buckets, or none, with a flow_id condition of == or in', () => {
    const counts = ['nps_survey_started', 'nps_scores_submitted', 'nps_feedbacks_submitted', 'nps_promoters'];
    expect(() => metricsOf({ metrics: counts, conditions: [['flow_id', 'in', ['a', 'b']]] })).not.toThrow();
    expect(() => metricsOf({ metrics: counts, dimensions: ['day', 'name', 'attributes.plan'], conditions: [SURVEY] })).not.toThrow();
    expect(() =>
      metricsOf({ metrics: ['nps_scores_submitted'], dimensions: ['day'], conditions: [['event', '==', 'x'], SURVEY] }),
    ).not.toThrow();
  });

  it('sorts by a metric of any kind by the name it was asked by', () => {
    const spec = analyticsSpecOf({ ...WINDOW, metrics: ['events', 'median_score'], order_by: [['median_score', 'desc']] });
    expect(spec.orderBy).toEqual([{ name: 'median_score', descending: true }]);
  });

  it.each([
    [
      { metrics: ['clicks'] },
      /^metrics\[0\]: unknown metric "clicks"; use one of "events", .*"nps_feedbacks_submitted" or avg_<field>, median_<field>, p90_<field>, p99_<field>$/,
    ],
    [
      { metrics: ['events', 'avg_colour'] },
      /^metrics\[1\]: unknown field "colour"; a statistic reads one of .*"flow_id", .*"feedback".* or attributes.<key>$/,
    ],
    [{ metrics: ['avg_'] }, /^metrics\[0\]: unknown metric "avg_"/],
    [{ metrics: ['p50_score'] }, /^metrics\[0\]: unknown metric "p50_score"/],
    [{ metrics: ['median_score', 'median_score'] }, /^metrics\[1\]: "median_score" is already asked for$/],
    [{ metrics: Array.from({ length: 17 }, (_, i) => `avg_attributes.k${i}`) }, /^metrics: must name at most 16$/],
    [
      { metrics: ['nps_promoters'], dimensions: ['day'] },
      /^metrics\[0\]: NPS metrics require a `flow_id` condition naming the survey: add \["flow_id", "==", "<the survey's flow id>"\]/,
    ],
    // Only a top-level condition naming it names the survey: one inside `or` may not hold.
    [
      { metrics: ['events', 'nps_promoters'], conditions: [['or', SURVEY, ['name', '==', 'x']]] },
      /^metrics\[0\]: "events" cannot be asked beside NPS metrics/,
    ],
    [
      { metrics: ['nps_neutrals'], conditions: [['or', SURVEY, ['name', '==', 'x']]] },
      /^metrics\[0\]: NPS metrics require a `flow_id` condition/,
    ],
    [{ metrics: ['nps_neutrals'], conditions: [['flow_id', '!=', 'nps-1']] }, /^metrics\[0\]: NPS metrics require a `flow_id` condition/],
    [
      { metrics: ['nps_promoters', 'avg_score'], conditions: [SURVEY] },
      /^metrics\[1\]: "avg_score" cannot be asked beside NPS metrics, which are rolling 30-day figures over other events; ask for it in a spec of its own$/,
    ],
    [
      { metrics: ['nps_promoters'], dimensions: ['name', 'week'], conditions: [SURVEY] },
      /^dimensions\[1\]: NPS metrics are rolling 30-day figures as of a day: group them by "day", or by no time bucket for the figures as of the window's last day$/,
    ],
    [
      { metrics: ['nps_computed_score'], conditions: [SURVEY] },
      /^metrics\[0\]: "nps_computed_score" is a daily series: it takes exactly the dimensions \["day"\]$/,
    ],
    [
      { metrics: ['nps_computed_score'], dimensions: ['day', 'name'], conditions: [SURVEY] },
      /^metrics\[0\]: "nps_computed_score" is a daily series/,
    ],
    [
      { metrics: ['nps_computed_score', 'nps_scores_submitted'], dimensions: ['day'], conditions: [SURVEY] },
      /^metrics\[1\]: "nps_scores_submitted" cannot be asked beside "nps_computed_score" \(the real API computes them apart\); ask for it in a spec of its own$/,
    ],
    [
      { metrics: ['nps_promoters', 'nps_respondents'], conditions: [SURVEY] },
      /^metrics\[1\]: "nps_respondents" is not a metric \(the real API fails on it\): respondents are nps_promoters \+ nps_neutrals \+ nps_detractors/,
    ],
    [
      { columns: ['timestamp', 'nps_raw_score'] },
      /^columns\[1\]: "nps_raw_score" is the engine's raw NPS column, which the real API cannot answer; use "score"$/,
    ],
    [
      { columns: ['nps_feedback'] },
      /^columns\[0\]: "nps_feedback" is the engine's raw NPS column, which the real API cannot answer; use "feedback"$/,
    ],
    [{ metrics: ['events'], dimensions: ['nps_raw_score'] }, /^dimensions\[0\]: "nps_raw_score" is the engine's raw NPS column/],
  ])('refuses %j naming the metric or field', (body, detail) => {
    expect(detailOf(body)).toMatch(detail);
  });
});
