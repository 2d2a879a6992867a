import { analyticsSpecOf } from '../application/analytics-spec';
import { analyticsStatement } from './analytics-sql';

const WINDOW = { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-02T00:00:00Z' };
const HOSTILE = `x'); DROP TABLE events; --`;

describe('analyticsStatement', () => {
  it('puts every value and name of the request into parameters, none into the SQL text', () => {
    const spec = analyticsSpecOf({
      ...WINDOW,
      metrics: ['events', 'users'],
      dimensions: [`attributes.${HOSTILE}`, 'name'],
      conditions: [
        [`attributes.${HOSTILE}`, '==', HOSTILE],
        ['name', 'in', [HOSTILE]],
      ],
    });
    const statement = analyticsStatement('acct', spec, 11);
    expect(statement.sql).not.toContain('DROP');
    expect(statement.sql).not.toContain('acct');
    expect(Object.values(statement.params)).toEqual(expect.arrayContaining([HOSTILE, 'acct', 11, `attributes.${HOSTILE}`]));
    expect(statement.sql).toContain('LIMIT {max_rows:UInt64}');
  });

  it('compiles the conditions with the export compiler (its p-placeholders) within the half-open window', () => {
    const statement = analyticsStatement(
      'acct',
      analyticsSpecOf({ ...WINDOW, metrics: ['events'], conditions: [['flow_id', 'is not null']] }),
      1,
    );
    expect(statement.sql).toContain("timestamp >= {start_time:DateTime64(3, 'UTC')} AND timestamp < {end_time:DateTime64(3, 'UTC')}");
    // flow_id reads the key the SDKs send, then the one sent by hand.
    expect(statement.sql).toContain(
      "identity((NOT ((if(attribute_values[{p0:String}] != '', attribute_values[{p0:String}], attribute_values[{p1:String}]) " +
        "AS condition_value_0) IN ('', 'null'))))",
    );
    expect(statement.params).toMatchObject({
      p0: 'flowId',
      p1: 'flow_id',
      start_time: '2025-10-01 00:00:00.000',
      end_time: '2025-10-02 00:00:00.000',
    });
  });

  it('refuses a condition on a field the analytics vocabulary does not have, pointing to attributes.<key>', () => {
    expect(() =>
      analyticsStatement('acct', analyticsSpecOf({ ...WINDOW, metrics: ['events'], conditions: [['plan', '==', 'pro']] }), 1),
    ).toThrow(/^conditions\[0\]\[0\]: unknown field "plan"; use one of "timestamp", "name", "event", .* or attributes.<key>$/);
  });

  it('orders aggregate rows by time bucket, then the first metric, largest first, then the other dimensions', () => {
    const statement = analyticsStatement(
      'acct',
      analyticsSpecOf({ ...WINDOW, metrics: ['users', 'events'], dimensions: ['name', 'day'] }),
      1,
    );
    expect(statement.sql).toContain('ORDER BY d1 ASC, m0 DESC, d0 ASC LIMIT {max_rows:UInt64}');
  });

  it('groups flows by the flow_id column the insert fills, and counts users on their stored keys', () => {
    const statement = analyticsStatement(
      'acct',
      analyticsSpecOf({ ...WINDOW, metrics: ['users'], dimensions: ['flow_id', 'attributes.flow_id'] }),
      1,
    );
    expect(statement.sql).toContain("ifNull(if(unparsed_flow_ids AND flow_id = '\\xFF', coalesce(if(JSONType(attributes, 'flowId')");
    expect(statement.sql).toMatch(/, flow_id\), ''\) AS d0, .*\{a0:String\}\)\)\) AS d1, uniqExactIf\(user_key, user_key != 0\) AS m0/);
  });

  it('reads the JSON of flow ids the insert could not read only where the account window holds such events', () => {
    const flows = analyticsStatement('acct', analyticsSpecOf({ ...WINDOW, metrics: ['events'], dimensions: ['flow_id'] }), 1);
    expect(flows.sql).toMatch(
      /^WITH \(SELECT count\(\) > 0 FROM events WHERE account_id = \{account_id:String\} AND timestamp >= .* AND flow_id = '\\xFF'\) AS unparsed_flow_ids SELECT /,
    );
    for (const body of [{ metrics: ['events'], dimensions: ['name', 'attributes.plan'] }, { columns: ['flow_id'] }]) {
      expect(analyticsStatement('acct', analyticsSpecOf({ ...WINDOW, ...body }), 1).sql).not.toContain('unparsed_flow_ids');
    }
  });

  it('passes the field of a statistic as a parameter', () => {
    const statement = analyticsStatement('acct', analyticsSpecOf({ ...WINDOW, metrics: [`avg_attributes.${HOSTILE}`] }), 1);
    expect(statement.sql).not.toContain('DROP');
    expect(statement.sql).toContain('ifNotFinite(ifNull(avg(toFloat64OrNull(attribute_values[{a0:String}])), 0), 0) AS m0');
    expect(statement.params).toMatchObject({ a0: HOSTILE, a1: `avg_attributes.${HOSTILE}` });
  });

  it('reads the NPS events of the 30 days up to each day, their conditions applied, once for each day they count for', () => {
    const spec = analyticsSpecOf({ ...WINDOW, metrics: ['nps_promoters'], dimensions: ['day'], conditions: [['flow_id', '==', 'nps-1']] });
    const { sql } = analyticsStatement('acct', spec, 1);
    expect(sql).toContain('ARRAY JOIN arrayMap(offset -> addDays(greatest(toDate(timestamp, {time_zone:String}), toDate({start_time:');
    expect(sql).toContain(
      "timestamp >= subtractDays({start_time:DateTime64(3, 'UTC')}, 31) AND timestamp < {end_time:DateTime64(3, 'UTC')}",
    );
    expect(sql).toMatch(
      /AND name IN \('appcues:nps_survey_started', .*\) AND \(.*\{p0:String\}.*\) SETTINGS asterisk_include_materialized_columns = 1/,
    );
    // Without `day`, the figures are as of the window's last day alone.
    const lastDay = analyticsStatement(
      'acct',
      analyticsSpecOf({ ...WINDOW, metrics: ['nps_promoters'], conditions: [['flow_id', '==', 'x']] }),
      1,
    );
    expect(lastDay.sql).toContain(
      'arrayMap(offset -> addDays(greatest(toDate(timestamp, {time_zone:String}), toDate(subtractMilliseconds({end_time:',
    );
  });

  it('orders raw rows by time', () => {
    const statement = analyticsStatement('acct', analyticsSpecOf({ ...WINDOW, columns: ['name'] }), 1);
    expect(statement.sql).toMatch(/FROM events WHERE .* ORDER BY timestamp, event_id LIMIT/);
  });
});
