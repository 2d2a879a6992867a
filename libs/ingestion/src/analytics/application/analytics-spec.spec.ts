import { DomainError } from '@guidepost/platform-errors';
import { analyticsConditionField, analyticsSpecOf, syncAnalyticsSpecOf } from './analytics-spec';

const WINDOW = { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-02T00:00:00Z' };

function detailOf(body: unknown, specOf: (body: unknown) => unknown = analyticsSpecOf): string {
  try {
    specOf(body);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_request') return error.detail;
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('analyticsSpecOf', () => {
  it('resolves an aggregate spec: metrics, dimensions by kind, the window as instants', () => {
    const spec = analyticsSpecOf({
      ...WINDOW,
      metrics: ['events', 'users'],
      dimensions: ['flow_id', 'name', 'day', 'attributes.plan'],
      conditions: [['name', '==', 'x']],
    });
    expect(spec).toEqual({
      shape: 'aggregate',
      metrics: [
        { kind: 'count', name: 'events' },
        { kind: 'count', name: 'users' },
      ],
      dimensions: [
        { name: 'flow_id', source: { kind: 'attribute-field', field: 'flow_id', keys: ['flowId', 'flow_id'] } },
        { name: 'name', source: { kind: 'field', field: 'name' } },
        { name: 'day', source: { kind: 'bucket', bucket: 'day' } },
        { name: 'attributes.plan', source: { kind: 'attribute', key: 'plan' } },
      ],
      conditions: [['name', '==', 'x']],
      startTime: new Date('2025-10-01T00:00:00Z'),
      endTime: new Date('2025-10-02T00:00:00Z'),
      timeZone: 'UTC',
      orderBy: [],
      limit: undefined,
      offset: 0,
    });
  });

  it('reads a reference spec of the official clients: event, order_by, dates, timezone, limit', () => {
    const spec = analyticsSpecOf({
      metrics: ['events', 'users'],
      dimensions: ['event'],
      order_by: [['events', 'desc']],
      start_time: '2026-05-29',
      end_time: '2026-08-26',
      timezone: 'UTC',
      limit: 20,
    });
    expect(spec).toMatchObject({
      dimensions: [{ name: 'event', source: { kind: 'field', field: 'name' } }],
      orderBy: [{ name: 'events', descending: true }],
      startTime: new Date('2026-05-29T00:00:00Z'),
      // A date as end counts its own day.
      endTime: new Date('2026-08-27T00:00:00Z'),
      limit: 20,
    });
  });

  it('reads dates and unzoned date-times in the timezone, and ignores account_id', () => {
    const spec = analyticsSpecOf({
      account_id: 'another-account',
      metrics: ['events'],
      start_time: '2026-07-01',
      end_time: '2026-07-01T12:00:00',
      timezone: 'America/New_York',
      offset: 40,
    });
    expect(spec).toMatchObject({
      startTime: new Date('2026-07-01T04:00:00Z'),
      endTime: new Date('2026-07-01T16:00:00Z'),
      timeZone: 'America/New_York',
      offset: 40,
    });
  });

  it('reads event as name in conditions, within conjunctions too', () => {
    const spec = analyticsSpecOf({
      ...WINDOW,
      columns: ['event', 'timestamp'],
      conditions: [
        ['event', '==', 'a'],
        ['or', ['event', 'like', 'b%'], ['flow_id', '==', 'f']],
      ],
    });
    expect(spec.conditions).toEqual([
      ['name', '==', 'a'],
      ['or', ['name', 'like', 'b%'], ['flow_id', '==', 'f']],
    ]);
  });

  it('resolves the vocabulary by what each field reads: columns, key paths, stored columns, the page', () => {
    const spec = analyticsSpecOf({
      ...WINDOW,
      metrics: ['sessions'],
      dimensions: ['timestamp', 'app_id', 'session_id', 'user_agent_browser', 'hostname', 'context_url', 'context'],
    });
    expect(spec).toMatchObject({
      metrics: [{ kind: 'count', name: 'sessions' }],
      dimensions: [
        { name: 'timestamp', source: { kind: 'field', field: 'timestamp' } },
        { name: 'app_id', source: { kind: 'attribute-field', field: 'app_id', keys: ['_identity._appId', 'appId', 'app_id'] } },
        { name: 'session_id', source: { kind: 'stored', field: 'session_id' } },
        { name: 'user_agent_browser', source: { kind: 'stored', field: 'user_agent_browser' } },
        { name: 'hostname', source: { kind: 'page', part: 'hostname' } },
        { name: 'context_url', source: { kind: 'page', part: 'url' } },
        { name: 'context', source: { kind: 'field', field: 'context' } },
      ],
    });
  });

  it('compares a key path, a stored column and a page part in conditions, and refuses a profile field there too', () => {
    expect(analyticsConditionField('app_id', 'conditions[0][0]')).toEqual({
      kind: 'attribute',
      keys: [['_identity', '_appId'], ['appId'], ['app_id']],
    });
    expect(analyticsConditionField('platform', 'conditions[0][0]')).toEqual({ kind: 'text', name: 'platform', sql: 'platform' });
    expect(analyticsConditionField('path', 'conditions[0][0]')).toEqual({
      kind: 'text',
      name: 'path',
      sql: "path(ifNull(context_url, ''))",
    });
    expect(() => analyticsConditionField('attribute_value', 'conditions[2][0]')).toThrow(
      /^conditions\[2\]\[0\]: "attribute_value" is a profile field/,
    );
  });

  it('takes a window of 90 days for a query and refuses a longer one, naming its length', () => {
    expect(() => syncAnalyticsSpecOf({ metrics: ['events'], start_time: '2026-05-29', end_time: '2026-08-26' })).not.toThrow();
    expect(detailOf({ metrics: ['events'], start_time: '2026-01-01', end_time: '2026-05-27' }, syncAnalyticsSpecOf)).toBe(
      'end_time: time range of 147 days exceeds the 90-day maximum for this query shape; narrow start_time and end_time, ' +
        'or run the spec as an export (POST /analytics/exports)',
    );
    // An export takes any window.
    expect(() => analyticsSpecOf({ metrics: ['events'], start_time: '2026-01-01', end_time: '2026-05-27' })).not.toThrow();
  });

  it('counts a window of whole days across the end of daylight saving time as those days', () => {
    // 2026-11-01 has 25 hours in New York: the window is 90 days and an hour long.
    const ninetyDays = { metrics: ['events'], start_time: '2026-08-27', end_time: '2026-11-24', timezone: 'America/New_York' };
    expect(() => syncAnalyticsSpecOf(ninetyDays)).not.toThrow();
    expect(detailOf({ ...ninetyDays, end_time: '2026-11-25' }, syncAnalyticsSpecOf)).toMatch(/^end_time: time range of 91 days/);
  });

  it('resolves rank_n over a dimension of the spec, top by default, name and event being one', () => {
    const spec = analyticsSpecOf({ ...WINDOW, metrics: ['users'], dimensions: ['day', 'event'], rank_n: { n: 5, dimension: 'name' } });
    expect(spec).toMatchObject({ shape: 'aggregate', rank: { n: 5, top: true, dimension: { name: 'event' } } });
    const bottom = analyticsSpecOf({
      ...WINDOW,
      metrics: ['events'],
      dimensions: ['flow_id'],
      rank_n: { n: 2, direction: 'bottom', dimension: 'flow_id' },
    });
    expect(bottom).toMatchObject({ rank: { n: 2, top: false, dimension: { name: 'flow_id' } } });
  });

  it('resolves a raw spec with columns', () => {
    const spec = analyticsSpecOf({ ...WINDOW, columns: ['timestamp', 'attributes', 'attributes.a.b'], limit: 5 });
    expect(spec).toMatchObject({
      shape: 'raw',
      limit: 5,
      columns: [{ name: 'timestamp' }, { name: 'attributes' }, { name: 'attributes.a.b', source: { kind: 'attribute', key: 'a.b' } }],
    });
  });

  it.each([
    [
      { metrics: ['events', 'clicks'] },
      /^metrics\[1\]: unknown metric "clicks"; use one of "events", "users", "groups", "sessions", "conversion", /,
    ],
    [{ metrics: ['events', 'events'] }, /^metrics\[1\]: "events" is already asked for$/],
    [{ metrics: [] }, /^metrics: must name at least one metric/],
    [{ metrics: ['events'], dimensions: ['name', 'colour'] }, /^dimensions\[1\]: unknown dimension "colour"/],
    [
      { metrics: ['events'], dimensions: ['last_seen'] },
      /^dimensions\[0\]: "last_seen" is a profile field: the event store holds events, not profiles; read a user's profile with GET \/v2\/accounts\/\{account\}\/users\/\{user_id\}\/profile$/,
    ],
    [{ columns: ['attribute_name'] }, /^columns\[0\]: "attribute_name" is a profile field/],
    [{ metrics: ['events'], dimensions: ['attributes.'] }, /^dimensions\[0\]: unknown dimension/],
    [{ metrics: ['events'], dimensions: ['day', 'day'] }, /^dimensions\[1\]: "day" is already asked for$/],
    [{ metrics: ['events'], dimensions: Array.from({ length: 17 }, (_, i) => `attributes.k${i}`) }, /^dimensions: must name at most 16$/],
    [{ columns: ['name', 'day'] }, /^columns\[1\]: unknown column "day"/],
    [{ columns: [] }, /^columns: must name at least one column$/],
    [{ columns: ['name'], dimensions: ['name'] }, /^dimensions: /],
    [{ metrics: ['events'], columns: ['name'] }, /^columns: give either metrics/],
    [{}, /^metrics: is required unless columns is given/],
    [{ metrics: [1] }, /^metrics\.0: must be string$/],
    [{ metrics: ['events'], end_time: '2025-10-01T00:00:00Z' }, /^end_time: must be after start_time/],
    [{ metrics: ['events'], start_time: 'yesterday' }, /^start_time: must be an ISO 8601 date-time/],
    [
      { metrics: ['events'], timezone: '+05:00' },
      /^timezone: must be an IANA time zone name such as "UTC" or "America\/New_York", got "\+05:00"$/,
    ],
    [{ metrics: ['events'], timezone: 'Mars/Base' }, /^timezone: must be an IANA time zone name/],
    [
      { metrics: ['events'], order_by: [['users', 'desc']] },
      /^order_by\[0\]\[0\]: "users" is not a field of the answer; sort by one of "events"$/,
    ],
    [{ metrics: ['events'], order_by: [['events', 'down']] }, /^order_by/],
    [{ columns: ['name'], order_by: [['timestamp', 'asc']] }, /^order_by\[0\]\[0\]: "timestamp" is not a field of the answer/],
    [{ metrics: ['events'], offset: -1 }, /^offset/],
    [{ metrics: ['events'], end_time: 1_700_000_000_000 }, /end_time/],
    [{ metrics: ['events'], limit: 0 }, /^limit/],
    [
      { metrics: ['events'], dimensions: ['day'], rank_n: { n: 3, direction: 'top', dimension: 'name' } },
      /^rank_n\.dimension: "name" is not a dimension of the spec; rank one of its dimensions/,
    ],
    [
      { metrics: ['events'], dimensions: ['day', 'flow_id'], rank_n: { n: 3, dimension: 'name' } },
      /^rank_n\.dimension: "name" is not a dimension of the spec; rank one of "flow_id"$/,
    ],
    [{ metrics: ['events'], dimensions: ['day'], rank_n: { n: 3, dimension: 'day' } }, /^rank_n\.dimension: "day" is a time bucket/],
    [{ metrics: ['events'], dimensions: ['name'], rank_n: { n: 0, dimension: 'name' } }, /^rank_n\.n/],
    [{ metrics: ['events'], dimensions: ['name'], rank_n: { n: 1, direction: 'up', dimension: 'name' } }, /^rank_n\.direction/],
    [{ columns: ['name'], rank_n: { n: 1, dimension: 'name' } }, /^rank_n: /],
  ])('refuses %j naming the field', (body, detail) => {
    expect(detailOf({ ...WINDOW, ...body })).toMatch(detail);
  });

  it('names a missing start_time or end_time', () => {
    expect(detailOf({ metrics: ['events'], end_time: WINDOW.end_time })).toMatch(/^start_time: is required/);
    expect(detailOf({ metrics: ['events'], start_time: WINDOW.start_time })).toMatch(/^end_time: is required/);
  });
});
