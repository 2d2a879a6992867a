import { metricNamesOf } from './promql';

describe('metricNamesOf', () => {
  it('finds the metrics of a query, not its functions, labels, grouping or ranges', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.95, sum by (job, le) (rate(guidepost_http_request_duration_seconds_bucket{route!~"/health/.*", le="+Inf"}[$__rate_interval])))',
      ),
    ).toEqual(['guidepost_http_request_duration_seconds_bucket']);
  });

  it('finds every metric of a binary expression, with on(), or, numbers and offsets', () => {
    expect(
      metricNamesOf(
        '(sum by (job) (rate(a_total{status_code=~"5.."}[5m])) or sum by (job) (rate(b_total[5m])) * 0) / on (job) group_left sum(c offset 1h) > 1e3 and up == 0',
      ),
    ).toEqual(['a_total', 'b_total', 'c', 'up']);
  });
});
