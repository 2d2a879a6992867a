import { randomUUID } from 'node:crypto';
import { accountUrl, api, createAccount, eventually, expectJson, expectProblem, type JobDetail, type TestAccount } from './support';
import { completedJob, download, expectAbsoluteUrl, ONE_WEEK_MS } from './support-segments';
import { historyOfAtLeast, ndjsonBody, ndjsonText, startImport, type Json } from './support-people';

/**
 * Analytics queries (`POST /analytics/query`) and exports (`POST /analytics/exports`, `GET
 * /analytics/exports/{id}`). A fresh account holds only the events made here, so every answer is
 * checked against counts computed in this file from the same events.
 */

interface TrackedEvent {
  readonly name: string;
  readonly user_id: string;
  readonly group_id?: string;
  readonly timestamp: string;
  readonly attributes: Json;
  readonly context?: Json;
}

const FLOW_EVENTS = ['appcues:flow_started', 'appcues:flow_completed', 'appcues:flow_skipped', 'appcues:step_error'];
const USERS = ['ana', 'ben', 'cai', 'dee', 'eli'];
const FLOWS = ['onboarding', 'tour', 'upsell'];
const WINDOW = { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-04T00:00:00Z' };

/** Deterministic events over three days: flow events with `flow_id`, page views with a `plan`, and a few outside the window. */
function makeEvents(): TrackedEvent[] {
  const events: TrackedEvent[] = [];
  for (let i = 0; i < 90; i += 1) {
    const day = 1 + (i % 3);
    const at = `2025-10-0${day}T${String((i * 7) % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`;
    const user = USERS[(i * 3) % USERS.length];
    if (i % 4 === 3) {
      events.push({
        name: 'page_viewed',
        user_id: user,
        group_id: i % 8 === 3 ? 'acme' : undefined,
        timestamp: at,
        attributes: { plan: i % 3 === 0 ? 'pro' : 'free' },
      });
    } else {
      events.push({
        name: FLOW_EVENTS[(i * 5) % FLOW_EVENTS.length],
        user_id: user,
        timestamp: at,
        attributes: { flow_id: FLOWS[i % FLOWS.length], step: i % 5 },
      });
    }
  }
  // At end_time (excluded: the window is half open) and before start_time.
  events.push({ name: 'appcues:flow_started', user_id: 'ana', timestamp: WINDOW.end_time, attributes: { flow_id: 'onboarding' } });
  events.push({ name: 'appcues:flow_started', user_id: 'zed', timestamp: '2025-09-30T23:59:59Z', attributes: { flow_id: 'onboarding' } });
  return events;
}

const EVENTS = makeEvents();
const ONE_HOUR_MS = 3_600_000;
const IN_WINDOW = EVENTS.filter((event) => event.timestamp >= WINDOW.start_time && event.timestamp < WINDOW.end_time);

/** Rows `{...dimensions, events, users}` computed here from the events, keyed by the dimension values. */
function expectedRows(events: readonly TrackedEvent[], dimensionsOf: (event: TrackedEvent) => Json): Json[] {
  const groups = new Map<string, { dimensions: Json; events: number; users: Set<string> }>();
  for (const event of events) {
    const dimensions = dimensionsOf(event);
    const key = JSON.stringify(dimensions);
    const group = groups.get(key) ?? { dimensions, events: 0, users: new Set<string>() };
    group.events += 1;
    group.users.add(event.user_id);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => ({ ...group.dimensions, events: group.events, users: group.users.size }));
}

const byKey = (rows: readonly Json[]): Json[] => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

let account: TestAccount;

async function query(body: Json): Promise<Response> {
  return api(account, 'POST', '/analytics/query', { json: body });
}

async function rowsOf(body: Json): Promise<Json[]> {
  return expectJson<Json[]>(await query({ ...WINDOW, ...body }), 200);
}

/** A fresh account holding `events`, imported, once every user's events are in the event store (which queries read). */
async function accountWith(events: readonly TrackedEvent[]): Promise<TestAccount> {
  const created = await createAccount();
  const { completed } = await completedJob(created, await startImport(created, 'events', ndjsonBody(ndjsonText(events))));
  expect(completed.attributes).toMatchObject({ ingestions_completed: events.length, ingestions_failed: 0 });
  await Promise.all(
    [...new Set(events.map((event) => event.user_id))].map((user) =>
      historyOfAtLeast(created, user, events.filter((event) => event.user_id === user).length),
    ),
  );
  return created;
}

beforeAll(async () => {
  account = await accountWith(EVENTS);
});

describe('POST /analytics/query: aggregate rows', () => {
  it('answers the flow funnel by flow_id and name with the counts of the events', async () => {
    const rows = await rowsOf({ metrics: ['events', 'users'], dimensions: ['flow_id', 'name'], conditions: [['name', 'in', FLOW_EVENTS]] });
    const flowEvents = IN_WINDOW.filter((event) => FLOW_EVENTS.includes(event.name));
    expect(byKey(rows)).toEqual(byKey(expectedRows(flowEvents, (event) => ({ flow_id: event.attributes['flow_id'], name: event.name }))));
    // The first metric orders the rows, largest first.
    const counts = rows.map((row) => row['events'] as number);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('answers daily active users, oldest day first', async () => {
    const rows = await rowsOf({ metrics: ['users'], dimensions: ['day'] });
    const expected = expectedRows(IN_WINDOW, (event) => ({ day: event.timestamp.slice(0, 10) })).map(({ day, users }) => ({ day, users }));
    expect(rows).toEqual(expected.sort((a, b) => String(a['day']).localeCompare(String(b['day']))));
  });

  it('answers top events, clamped to the limit asked for with X-Rows-Truncated', async () => {
    const response = await query({ ...WINDOW, metrics: ['events'], dimensions: ['name'], limit: 2 });
    const rows = await expectJson<Json[]>(response, 200);
    expect(response.headers.get('x-rows-truncated')).toBe('true');
    const all = expectedRows(IN_WINDOW, (event) => ({ name: event.name }))
      .map(({ name, events }) => ({ name, events }))
      .sort((a, b) => (b['events'] as number) - (a['events'] as number) || String(a['name']).localeCompare(String(b['name'])));
    expect(rows).toEqual(all.slice(0, 2));
    const whole = await query({ ...WINDOW, metrics: ['events'], dimensions: ['name'] });
    expect(await expectJson<Json[]>(whole, 200)).toEqual(all);
    expect(whole.headers.get('x-rows-truncated')).toBeNull();
  });

  it('groups by an attribute, by group_id ("" when absent) and counts groups', async () => {
    const views = IN_WINDOW.filter((event) => event.name === 'page_viewed');
    const rows = await rowsOf({
      metrics: ['events', 'groups'],
      dimensions: ['attributes.plan', 'group_id'],
      conditions: [['name', '==', 'page_viewed']],
    });
    const expected = expectedRows(views, (event) => ({
      'attributes.plan': event.attributes['plan'],
      group_id: event.group_id ?? '',
    })).map((row) => ({
      'attributes.plan': row['attributes.plan'],
      group_id: row['group_id'],
      events: row['events'],
      groups: row['group_id'] === '' ? 0 : 1,
    }));
    expect(byKey(rows)).toEqual(byKey(expected));
  });

  it('answers one row in all without dimensions, and excludes events at end_time and before start_time', async () => {
    expect(await rowsOf({ metrics: ['events', 'users'] })).toEqual([
      { events: IN_WINDOW.length, users: new Set(IN_WINDOW.map((event) => event.user_id)).size },
    ]);
    expect(IN_WINDOW.length).toBe(EVENTS.length - 2);
  });

  it('takes second-precision RFC 3339 with an offset', async () => {
    const rows = await rowsOf({ metrics: ['events'], start_time: '2025-10-02T02:00:00+02:00', end_time: '2025-10-03T00:00:00.000Z' });
    expect(rows).toEqual([{ events: IN_WINDOW.filter((event) => event.timestamp.startsWith('2025-10-02')).length }]);
  });

  it('matches nothing for a condition on an unknown event name', async () => {
    expect(await rowsOf({ metrics: ['events'], dimensions: ['name'], conditions: [['name', '==', 'never:tracked']] })).toEqual([]);
  });

  it('reports the account’s query concurrency', async () => {
    const response = await query({ ...WINDOW, metrics: ['events'] });
    await expectJson(response, 200);
    const limit = Number(response.headers.get('x-concurrency-limit'));
    expect(limit).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers.get('x-concurrency-used'))).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers.get('x-concurrency-used'))).toBeLessThanOrEqual(limit);
  });

  it('answers parallel queries 200, or 429 with Retry-After once the account runs its limit, with the load in the headers', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        api(account, 'POST', '/analytics/query', {
          json: { ...WINDOW, metrics: ['users'], dimensions: ['user_id', 'day'] },
          retryThrottled: false,
        }),
      ),
    );
    for (const response of responses) {
      expect([200, 429]).toContain(response.status);
      const limit = response.headers.get('x-concurrency-limit');
      if (response.status === 200) {
        expect(limit).toMatch(/^\d+$/);
        expect(Number(response.headers.get('x-concurrency-used'))).toBeLessThanOrEqual(Number(limit));
      } else {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // Refused by the analytics limit (the account already runs its limit of queries), or by the request rate.
        if (limit !== null) expect(response.headers.get('x-concurrency-used')).toBe(limit);
        else expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
      }
      await response.arrayBuffer();
    }
  });
});

describe('POST /analytics/query: raw rows', () => {
  it('answers the columns asked for, oldest first', async () => {
    const rows = await rowsOf({
      columns: ['name', 'timestamp', 'user_id', 'flow_id', 'attributes.step'],
      conditions: [['user_id', '==', 'ben']],
    });
    const expected = IN_WINDOW.filter((event) => event.user_id === 'ben')
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp))
      .map((event) => ({
        name: event.name,
        timestamp: event.timestamp.replace('Z', '.000Z'),
        user_id: 'ben',
        flow_id: event.attributes['flow_id'] ?? '',
        'attributes.step': event.attributes['step'] ?? null,
      }));
    expect(rows.map((row) => row['timestamp'])).toEqual(expected.map((row) => row.timestamp));
    expect(byKey(rows)).toEqual(byKey(expected));
  });

  it('answers the attributes as an object', async () => {
    const rows = await rowsOf({
      columns: ['attributes', 'group_id'],
      conditions: [
        ['name', '==', 'page_viewed'],
        ['group_id', '==', 'acme'],
      ],
    });
    const expected = IN_WINDOW.filter((event) => event.group_id === 'acme').map((event) => ({
      attributes: event.attributes,
      group_id: 'acme',
    }));
    expect(byKey(rows)).toEqual(byKey(expected));
    expect(rows.length).toBeGreaterThan(0);
  });
});

describe('POST /analytics/query: specs as the official clients write them', () => {
  /** Events by name, most first, then by name: the default order and `order_by: events desc` alike. */
  const topEvents = (): Json[] =>
    expectedRows(IN_WINDOW, (event) => ({ event: event.name })).sort(
      (a, b) => (b['events'] as number) - (a['events'] as number) || String(a['event']).localeCompare(String(b['event'])),
    );

  it('answers the top-events reference spec: event, order_by, dates, timezone, limit, and an account_id it ignores', async () => {
    // appcues/skills skills/analytics-query/references/top-events.json, with this file's days; a date as
    // end_time counts its own day.
    const other = await createAccount();
    const rows = await expectJson<Json[]>(
      await query({
        metrics: ['events', 'users'],
        dimensions: ['event'],
        order_by: [['events', 'desc']],
        start_time: '2025-10-01',
        end_time: '2025-10-03',
        timezone: 'UTC',
        limit: 20,
        account_id: other.id,
      }),
      200,
    );
    expect(rows.map(({ event, events }) => ({ event, events }))).toEqual(topEvents().map(({ event, events }) => ({ event, events })));
  });

  it('answers the metrics-by-day reference spec with every day of the window, 0 where none has events', async () => {
    // appcues/skills skills/analytics-query/references/metrics-by-day.json over this file's days and the two after them.
    const rows = await expectJson<Json[]>(
      await query({ metrics: ['users', 'events'], dimensions: ['day'], start_time: '2025-10-01', end_time: '2025-10-05', timezone: 'UTC' }),
      200,
    );
    const inDays = EVENTS.filter((event) => event.timestamp >= '2025-10-01' && event.timestamp < '2025-10-06');
    const active = expectedRows(inDays, (event) => ({ day: event.timestamp.slice(0, 10) }));
    const days = ['2025-10-01', '2025-10-02', '2025-10-03', '2025-10-04', '2025-10-05'];
    expect(rows).toEqual(
      days.map((day) => {
        const counts = active.find((row) => row['day'] === day);
        return { day, users: counts?.['users'] ?? 0, events: counts?.['events'] ?? 0 };
      }),
    );
    expect(rows.at(-1)).toEqual({ day: '2025-10-05', users: 0, events: 0 });
  });

  it('keeps with rank_n the daily series of the most frequent events only', async () => {
    const rows = await rowsOf({ metrics: ['events'], dimensions: ['day', 'name'], rank_n: { n: 2, direction: 'top', dimension: 'name' } });
    const topTwo = topEvents()
      .slice(0, 2)
      .map(({ event }) => event);
    // Every day of the window for each of the two, 0 on a day without it.
    const expected = topTwo.flatMap((name) =>
      ['2025-10-01', '2025-10-02', '2025-10-03'].map((day) => ({
        day,
        name,
        events: IN_WINDOW.filter((event) => event.name === name && event.timestamp.startsWith(day)).length,
      })),
    );
    expect(byKey(rows)).toEqual(byKey(expected));
  });

  it('pages with offset through the sorted rows', async () => {
    const page = await rowsOf({ metrics: ['events'], dimensions: ['event'], order_by: [['events', 'desc']], limit: 2, offset: 2 });
    expect(page).toEqual(
      topEvents()
        .slice(2, 4)
        .map(({ event, events }) => ({ event, events })),
    );
  });

  it('buckets days in the timezone and reads date bounds there', async () => {
    // October in New York is UTC-4: an event at 02:00Z counts for the day before.
    const local = (event: TrackedEvent) => new Date(Date.parse(event.timestamp) - 4 * ONE_HOUR_MS).toISOString();
    const window = { start_time: '2025-10-01', end_time: '2025-10-02', timezone: 'America/New_York' };
    const inLocalWindow = EVENTS.filter((event) => local(event) >= '2025-10-01' && local(event) < '2025-10-03');
    const rows = await expectJson<Json[]>(await query({ ...window, metrics: ['events'], dimensions: ['day'] }), 200);
    const expected = expectedRows(inLocalWindow, (event) => ({ day: local(event).slice(0, 10) }))
      .map(({ day, events }) => ({ day, events }))
      .sort((a, b) => String(a['day']).localeCompare(String(b['day'])));
    expect(rows).toEqual(expected);
  });

  it("reads event as name in conditions and columns, with timestamps at the zone's offset", async () => {
    const rows = await rowsOf({
      columns: ['timestamp', 'event'],
      conditions: [
        ['event', '==', 'page_viewed'],
        ['user_id', '==', 'ana'],
      ],
      order_by: [['timestamp', 'desc']],
      timezone: 'Asia/Kolkata',
    });
    const expected = IN_WINDOW.filter((event) => event.name === 'page_viewed' && event.user_id === 'ana')
      .map((event) => ({
        timestamp: `${new Date(Date.parse(event.timestamp) + 330 * 60_000).toISOString().replace('Z', '')}+05:30`,
        event: 'page_viewed',
      }))
      .sort((a, b) => b.timestamp.localeCompare(a.timestamp));
    expect(rows).toEqual(expected);
    expect(rows.length).toBeGreaterThan(0);
  });
});

describe('POST /analytics/query: events as the SDKs send them', () => {
  // The web SDK's classic flow events carry flowId and stepId; the mobile SDKs' Flows 2.0 events
  // experienceId, stepId, stepType and, on errors, message (appcues-ios-sdk LifecycleEvent.swift). Both add
  // their own properties under _identity: the session, and the user agent (the iOS SDK's is its web view's) or the
  // operating system (appcues-ios-sdk AutoPropertyDecorator.swift).
  const day = '2025-11-03';
  const BROWSERS: Record<string, string> = {
    ana: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    ben: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
  };
  const IOS_WEB_VIEW = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
  const web = (name: string, user: string, flowId: string, stepId?: string): TrackedEvent => ({
    name: `appcues:${name}`,
    user_id: user,
    timestamp: `${day}T10:00:00Z`,
    attributes: {
      flowId,
      flowName: `Flow ${flowId}`,
      flowType: 'journey',
      ...(stepId === undefined ? {} : { stepId, stepType: 'modal' }),
      _identity: { _sessionId: `web-${user}`, _userAgent: BROWSERS[user] },
    },
    context: { url: 'https://app.example.com/home' },
  });
  const withMessage = (event: TrackedEvent, message: string): TrackedEvent => ({ ...event, attributes: { ...event.attributes, message } });
  const mobileError = (user: string, experienceId: string, stepId: string, message: string): TrackedEvent => ({
    name: 'appcues:v2:step_error',
    user_id: user,
    timestamp: `${day}T11:00:00Z`,
    attributes: {
      experienceId,
      experienceName: 'Tour',
      experienceType: 'mobile',
      stepId,
      stepType: 'modal',
      message,
      errorId: randomUUID(),
      _identity: { _sessionId: `ios-${user}`, _appId: 'app-ios', _operatingSystem: 'ios', _userAgent: IOS_WEB_VIEW },
    },
  });
  const SDK_EVENTS = [
    web('flow_started', 'ana', 'f-1'),
    web('flow_started', 'ben', 'f-1'),
    web('flow_started', 'ana', 'f-2'),
    web('step_started', 'ana', 'f-1', 's-1'),
    web('step_completed', 'ana', 'f-1', 's-1'),
    web('step_started', 'ben', 'f-1', 's-1'),
    web('step_started', 'ana', 'f-1', 's-2'),
    web('flow_completed', 'ana', 'f-1'),
    web('flow_skipped', 'ben', 'f-2'),
    mobileError('cai', 'e-1', 's-7', 'no target'),
    mobileError('dee', 'e-1', 's-7', 'no target'),
    mobileError('cai', 'e-1', 's-8', 'timed out'),
    // Classic step errors, whose message key no source names: read as the mobile SDKs send it.
    withMessage(web('step_error', 'ben', 'f-1', 's-2'), 'selector not found'),
    withMessage(web('step_child_error', 'ana', 'f-2', 's-3'), 'hotspot hidden'),
    { ...web('session_started', 'ana', ''), timestamp: `${day}T08:00:00Z` },
    { ...web('session_started', 'ben', ''), timestamp: `${day}T09:30:00Z` },
  ];
  const sdkWindow = { start_time: `${day}T00:00:00Z`, end_time: '2025-11-04T00:00:00Z' };
  let sdkAccount: TestAccount;

  beforeAll(async () => {
    sdkAccount = await accountWith(SDK_EVENTS);
  });

  async function sdkRows(spec: Json): Promise<Json[]> {
    return expectJson<Json[]>(await api(sdkAccount, 'POST', '/analytics/query', { json: { ...sdkWindow, ...spec } }), 200);
  }

  it('answers the flows +digest spec of the official CLI with each flow by the id the SDK sent', async () => {
    // appcues/cli crates/appcues/src/commands/flows.rs: events and users by flow_id and name.
    const rows = await sdkRows({
      metrics: ['events', 'users'],
      dimensions: ['flow_id', 'name'],
      conditions: [['name', 'in', FLOW_EVENTS]],
    });
    const sent = SDK_EVENTS.filter((event) => FLOW_EVENTS.includes(event.name));
    expect(byKey(rows)).toEqual(byKey(expectedRows(sent, (event) => ({ flow_id: event.attributes['flowId'], name: event.name }))));
    expect(rows).toContainEqual({ flow_id: 'f-1', name: 'appcues:flow_started', events: 2, users: 2 });
  });

  it('answers the step-funnel reference spec: steps of one flow, "" for the flow-level events', async () => {
    const funnelEvents = ['flow_started', 'step_started', 'step_completed', 'step_skipped', 'step_error', 'flow_completed'].map(
      (name) => `appcues:${name}`,
    );
    const rows = await sdkRows({
      metrics: ['events', 'users'],
      dimensions: ['step_id', 'name'],
      conditions: [
        ['flow_id', '==', 'f-1'],
        ['name', 'in', funnelEvents],
      ],
      timezone: 'UTC',
    });
    const sent = SDK_EVENTS.filter((event) => event.attributes['flowId'] === 'f-1' && funnelEvents.includes(event.name));
    expect(byKey(rows)).toEqual(byKey(expectedRows(sent, (event) => ({ step_id: event.attributes['stepId'] ?? '', name: event.name }))));
  });

  it('answers the v2-step-errors reference spec: errors by experience, step and message, most first', async () => {
    const rows = await sdkRows({
      metrics: ['events', 'users'],
      dimensions: ['experience_id', 'step_id', 'step_error_message'],
      conditions: [['name', '==', 'appcues:v2:step_error']],
      order_by: [['events', 'desc']],
      timezone: 'UTC',
    });
    expect(rows).toEqual([
      { experience_id: 'e-1', step_id: 's-7', step_error_message: 'no target', events: 2, users: 2 },
      { experience_id: 'e-1', step_id: 's-8', step_error_message: 'timed out', events: 1, users: 1 },
    ]);
  });

  it.each([
    [
      'step-errors',
      'appcues:step_error',
      'step_error_message',
      { flow_id: 'f-1', step_id: 's-2', step_error_message: 'selector not found' },
    ],
    [
      'step-child-errors',
      'appcues:step_child_error',
      'step_child_error_message',
      { flow_id: 'f-2', step_id: 's-3', step_child_error_message: 'hotspot hidden' },
    ],
  ])('answers the %s reference spec: classic errors by flow, step and message', async (_spec, name, message, row) => {
    const rows = await sdkRows({
      metrics: ['events', 'users'],
      dimensions: ['flow_id', 'step_id', message],
      conditions: [['name', '==', name]],
      order_by: [['events', 'desc']],
      timezone: 'UTC',
    });
    expect(rows).toEqual([{ ...row, events: 1, users: 1 }]);
  });

  it('answers the filtered-metrics reference spec: users and events of flow starts, each day of the window', async () => {
    const rows = await sdkRows({
      metrics: ['users', 'events'],
      dimensions: ['day'],
      conditions: [['event', '==', 'appcues:flow_started']],
      start_time: '2025-11-02',
      end_time: '2025-11-04',
      timezone: 'UTC',
    });
    expect(rows).toEqual([
      { day: '2025-11-02', users: 0, events: 0 },
      { day: day, users: 2, events: 3 },
      { day: '2025-11-04', users: 0, events: 0 },
    ]);
  });

  it('answers the raw-events reference spec: session starts, newest first', async () => {
    const rows = await sdkRows({
      columns: ['timestamp', 'user_id', 'name'],
      conditions: [['name', '==', 'appcues:session_started']],
      order_by: [['timestamp', 'desc']],
      timezone: 'UTC',
    });
    expect(rows).toEqual([
      { timestamp: `${day}T09:30:00.000Z`, user_id: 'ben', name: 'appcues:session_started' },
      { timestamp: `${day}T08:00:00.000Z`, user_id: 'ana', name: 'appcues:session_started' },
    ]);
  });

  it('answers the two windows of analytics +compare with the same keys, an empty window with no rows', async () => {
    // appcues/cli crates/appcues/src/commands/composite.rs: one spec over two adjacent windows, joined on every non-metric key.
    const spec = { metrics: ['events', 'users'], dimensions: ['flow_id', 'name'], conditions: [['name', 'in', FLOW_EVENTS]] };
    const current = await sdkRows(spec);
    const previous = await sdkRows({ ...spec, start_time: '2025-11-02T00:00:00Z', end_time: `${day}T00:00:00Z` });
    expect(previous).toEqual([]);
    expect(current.length).toBeGreaterThan(0);
    for (const row of current) expect(Object.keys(row).sort()).toEqual(['events', 'flow_id', 'name', 'users']);
  });

  it('answers conversion: the share of the users who started each flow that completed it', async () => {
    const rows = await sdkRows({
      metrics: ['conversion', 'users'],
      dimensions: ['flow_id'],
      conditions: [['name', 'in', ['appcues:flow_started', 'appcues:flow_completed']]],
    });
    // f-1: ana and ben started it, ana completed it; f-2: ana started it only.
    expect(rows).toEqual([
      { flow_id: 'f-1', conversion: 0.5, users: 2 },
      { flow_id: 'f-2', conversion: 0, users: 1 },
    ]);
  });

  it('answers the errors-by-browser reference spec: classic and v2 errors by flow, experience, browser and platform', async () => {
    // appcues/skills skills/experience-errors/references/errors-by-browser.json
    const rows = await sdkRows({
      metrics: ['events', 'users'],
      dimensions: ['flow_id', 'experience_id', 'user_agent_browser', 'platform'],
      conditions: [['name', 'in', ['appcues:step_error', 'appcues:step_child_error', 'appcues:v2:step_error']]],
      order_by: [['events', 'desc']],
      timezone: 'UTC',
    });
    expect(rows).toEqual([
      { flow_id: '', experience_id: 'e-1', user_agent_browser: 'WebView', platform: 'ios', events: 3, users: 2 },
      { flow_id: 'f-1', experience_id: '', user_agent_browser: 'Safari', platform: 'web', events: 1, users: 1 },
      { flow_id: 'f-2', experience_id: '', user_agent_browser: 'Chrome', platform: 'web', events: 1, users: 1 },
    ]);
  });

  it('counts sessions by the session id the SDKs send, per platform and page', async () => {
    expect(await sdkRows({ metrics: ['sessions', 'users'], dimensions: ['platform', 'hostname'] })).toEqual([
      { platform: 'ios', hostname: '', sessions: 2, users: 2 },
      { platform: 'web', hostname: 'app.example.com', sessions: 2, users: 2 },
    ]);
  });

  it('refuses a condition on a field it does not know, naming it, rather than matching nothing', async () => {
    const response = await api(sdkAccount, 'POST', '/analytics/query', {
      json: { ...sdkWindow, metrics: ['events'], conditions: [['flowid', '==', 'f-1']] },
    });
    await expectProblem(response, 400, /^conditions\[0\]\[0\]: unknown field "flowid"; use one of .* or attributes.<key>$/);
  });
});

describe('POST /analytics/query: NPS surveys as the web SDK sends them', () => {
  // The classic web SDK's NPS events carry the survey's flowId, with score or feedback; NPS 2.0 sends
  // appcues:nps_score_and_feedback with both (the nps-sentiment skill of appcues/skills).
  const SURVEY = 'nps-survey-1';
  const DAY_MS = 24 * ONE_HOUR_MS;
  const npsWindow = { start_time: '2025-11-01T00:00:00Z', end_time: '2025-12-01T00:00:00Z', timezone: 'UTC' };
  const SCORE_EVENTS = ['appcues:nps_score', 'appcues:nps_score_and_feedback'];
  const REPLY_EVENTS = ['appcues:nps_score', 'appcues:nps_feedback', 'appcues:nps_score_and_feedback'];

  /** An answer every 30 hours from 2025-10-05 to past the window's end: every day of the window has some within its 30 days. */
  function npsEvents(): TrackedEvent[] {
    return Array.from({ length: 50 }, (_, i) => {
      const timestamp = new Date(Date.parse('2025-10-05T00:00:00Z') + i * 30 * ONE_HOUR_MS).toISOString();
      const base = { user_id: `respondent-${i % 7}`, timestamp };
      const flowId = i % 8 === 0 ? 'nps-survey-2' : SURVEY;
      if (i % 6 === 0) return { ...base, name: 'appcues:nps_survey_started', attributes: { flowId } };
      if (i % 5 === 0) return { ...base, name: 'appcues:nps_feedback', attributes: { flowId, feedback: `reply ${i}` } };
      if (i % 9 === 0)
        return { ...base, name: 'appcues:nps_score_and_feedback', attributes: { flowId, score: (i * 3) % 11, feedback: `both ${i}` } };
      return { ...base, name: 'appcues:nps_score', attributes: { flowId, score: (i * 7) % 11 } };
    });
  }
  const NPS_EVENTS = npsEvents();
  const OF_SURVEY = NPS_EVENTS.filter((event) => event.attributes['flowId'] === SURVEY);
  let npsAccount: TestAccount;

  beforeAll(async () => {
    npsAccount = await accountWith(NPS_EVENTS);
  });

  async function npsRows(spec: Json): Promise<Json[]> {
    return expectJson<Json[]>(await api(npsAccount, 'POST', '/analytics/query', { json: { ...npsWindow, ...spec } }), 200);
  }

  /** The days of the window, and the survey's events of the 30 days ending with a day (that day included). */
  const DAYS = Array.from({ length: 30 }, (_, i) => new Date(Date.parse(npsWindow.start_time) + i * DAY_MS).toISOString().slice(0, 10));
  function within30Days(day: string): TrackedEvent[] {
    const [from, to] = [Date.parse(day) - 29 * DAY_MS, Date.parse(day) + DAY_MS];
    return OF_SURVEY.filter((event) => Date.parse(event.timestamp) >= from && Date.parse(event.timestamp) < to);
  }

  /** The NPS of a day, computed here: each user's latest score of the 30 days, bucketed 9-10, 7-8, 0-6. */
  function npsOf(day: string): Json {
    const latest = new Map<string, number>();
    for (const event of within30Days(day)
      .filter((event) => SCORE_EVENTS.includes(event.name))
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp)))
      latest.set(event.user_id, event.attributes['score'] as number);
    const scores = [...latest.values()];
    const promoters = scores.filter((score) => score >= 9).length;
    const neutrals = scores.filter((score) => score === 7 || score === 8).length;
    const detractors = scores.filter((score) => score <= 6).length;
    const net = ((promoters - detractors) / scores.length) * 100;
    // Halves away from zero.
    const score = scores.length === 0 ? 0 : Math.sign(net) * Math.round(Math.abs(net));
    return { day, nps_computed_score: score, nps_promoters: promoters, nps_neutrals: neutrals, nps_detractors: detractors };
  }

  it('answers the nps-surveys reference spec: NPS events by survey and name', async () => {
    // appcues/skills skills/nps-sentiment/references/nps-surveys.json.
    const rows = await npsRows({
      metrics: ['events', 'users'],
      dimensions: ['flow_id', 'name'],
      conditions: [['name', 'like', 'appcues:nps_%']],
    });
    const sent = NPS_EVENTS.filter((event) => event.timestamp >= npsWindow.start_time && event.timestamp < npsWindow.end_time);
    expect(byKey(rows)).toEqual(byKey(expectedRows(sent, (event) => ({ flow_id: event.attributes['flowId'], name: event.name }))));
  });

  it("answers the nps-score reference spec: each day's rolling 30-day score and buckets", async () => {
    // appcues/skills skills/nps-sentiment/references/nps-score.json.
    const rows = await npsRows({
      metrics: ['nps_computed_score', 'nps_promoters', 'nps_neutrals', 'nps_detractors'],
      dimensions: ['day'],
      conditions: [['flow_id', '==', SURVEY]],
    });
    expect(rows).toEqual(DAYS.map(npsOf));
    // The first day counts answers from before the window.
    expect(OF_SURVEY.some((event) => event.timestamp < npsWindow.start_time)).toBe(true);
  });

  it('answers the NPS counts as of the last day of the window without day', async () => {
    const rows = await npsRows({
      metrics: ['nps_scores_submitted', 'nps_feedbacks_submitted', 'nps_survey_started'],
      conditions: [['flow_id', '==', SURVEY]],
    });
    const last = within30Days(DAYS[DAYS.length - 1]);
    expect(rows).toEqual([
      {
        nps_scores_submitted: last.filter((event) => SCORE_EVENTS.includes(event.name)).length,
        nps_feedbacks_submitted: last.filter((event) => event.attributes['feedback'] !== undefined).length,
        nps_survey_started: last.filter((event) => event.name === 'appcues:nps_survey_started').length,
      },
    ]);
  });

  it('answers the nps-feedback reference spec: replies as raw rows, latest first', async () => {
    // appcues/skills skills/nps-sentiment/references/nps-feedback.json.
    const rows = await npsRows({
      columns: ['timestamp', 'user_id', 'name', 'score', 'feedback'],
      conditions: [
        ['flow_id', '==', SURVEY],
        ['name', 'in', REPLY_EVENTS],
      ],
      order_by: [['timestamp', 'desc']],
    });
    const expected = OF_SURVEY.filter(
      (event) => REPLY_EVENTS.includes(event.name) && event.timestamp >= npsWindow.start_time && event.timestamp < npsWindow.end_time,
    )
      .sort((a, b) => b.timestamp.localeCompare(a.timestamp))
      .map((event) => ({
        timestamp: event.timestamp,
        user_id: event.user_id,
        name: event.name,
        score: event.attributes['score'] ?? '',
        feedback: event.attributes['feedback'] ?? '',
      }));
    expect(rows).toEqual(expected);
  });

  it('answers the mean and percentiles of the scores sent', async () => {
    const rows = await npsRows({ metrics: ['avg_score', 'median_score'], conditions: [['flow_id', '==', SURVEY]] });
    const scores = OF_SURVEY.filter(
      (event) => SCORE_EVENTS.includes(event.name) && event.timestamp >= npsWindow.start_time && event.timestamp < npsWindow.end_time,
    )
      .map((event) => event.attributes['score'] as number)
      .sort((a, b) => a - b);
    const middle = (scores.length - 1) / 2;
    const median = (scores[Math.floor(middle)] + scores[Math.ceil(middle)]) / 2;
    expect(rows).toEqual([
      { avg_score: expect.closeTo(scores.reduce((sum, score) => sum + score, 0) / scores.length, 9) as number, median_score: median },
    ]);
  });

  it.each([
    ['no flow_id condition', { metrics: ['nps_promoters'], dimensions: ['day'] }, /NPS metrics require a `flow_id` condition/],
    [
      'nps_respondents',
      { metrics: ['nps_respondents'], conditions: [['flow_id', '==', SURVEY]] },
      /^metrics\[0\]: "nps_respondents" is not a metric/,
    ],
    [
      'nps_computed_score by name',
      { metrics: ['nps_computed_score'], dimensions: ['name'], conditions: [['flow_id', '==', SURVEY]] },
      /daily series/,
    ],
    ['the raw score column', { columns: ['nps_raw_score'] }, /^columns\[0\]: "nps_raw_score" .* use "score"$/],
  ])('answers 400 for %s', async (_label, body, detail) => {
    await expectProblem(await api(npsAccount, 'POST', '/analytics/query', { json: { ...npsWindow, ...body } }), 400, detail);
  });
});

describe('POST /analytics/query: refusals name the field', () => {
  it.each([
    ['an unknown metric', { metrics: ['events', 'clicks'] }, /^metrics\[1\]: unknown metric "clicks"/],
    ['an unknown dimension', { metrics: ['events'], dimensions: ['colour'] }, /^dimensions\[0\]: unknown dimension "colour"/],
    ['an unknown column', { columns: ['name', 'colour'] }, /^columns\[1\]: unknown column "colour"/],
    ['both metrics and columns', { metrics: ['events'], columns: ['name'] }, /^columns: /],
    ['neither metrics nor columns', {}, /^metrics: /],
    ['a bad operator', { metrics: ['events'], conditions: [['name', '>', 'x']] }, /^conditions\[0\]\[1\]: operator ">"/],
    ['an end before the start', { metrics: ['events'], end_time: '2025-09-01T00:00:00Z' }, /^end_time: /],
    ['a start without seconds', { metrics: ['events'], start_time: '2025-10-01T00:00' }, /^start_time: /],
    ['an unknown time zone', { metrics: ['events'], timezone: 'Mars/Base' }, /^timezone: must be an IANA time zone name/],
    [
      'a sort by a field not asked for',
      { metrics: ['events'], order_by: [['users', 'desc']] },
      /^order_by\[0\]\[0\]: "users" is not a field/,
    ],
    [
      'a window over 90 days',
      { metrics: ['events'], start_time: '2025-01-01', end_time: '2025-05-27' },
      /^end_time: time range of 147 days exceeds the 90-day maximum for this query shape/,
    ],
    ['an unknown field', { metrics: ['events'], colour: 'red' }, /colour: is not a known field/],
    [
      'a profile field, which the event store does not hold',
      { metrics: ['events'], dimensions: ['last_seen'] },
      /^dimensions\[0\]: "last_seen" is a profile field: .* GET \/v2\/accounts\/\{account\}\/users\/\{user_id\}\/profile$/,
    ],
  ])('answers 400 for %s, with the account’s concurrency', async (_label, body, detail) => {
    const response = await query({ ...WINDOW, ...body });
    expect([response.headers.get('x-concurrency-limit'), response.headers.get('x-concurrency-used')]).toEqual(['2', '0']);
    await expectProblem(response, 400, detail);
  });

  it('answers 400 naming end_time when it is missing', async () => {
    await expectProblem(await query({ metrics: ['events'], start_time: WINDOW.start_time }), 400, /end_time/);
  });

  it('answers 401 without credentials', async () => {
    const response = await fetch(accountUrl(account, '/analytics/query'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...WINDOW, metrics: ['events'] }),
    });
    await expectProblem(response, 401);
  });
});

interface ExportStatus {
  readonly job_id: string;
  readonly status: string;
  readonly download_url?: string;
  readonly expires_at?: string;
  readonly rows?: number;
  readonly truncated?: boolean;
  readonly failure_reason?: string;
}

/** Checks the export routes' concurrency headers (the account's job slots: imports and exports); returns how many are busy. */
function expectJobSlots(response: Response): number {
  const limit = response.headers.get('x-concurrency-limit');
  const used = response.headers.get('x-concurrency-used');
  expect(limit).toMatch(/^[1-9]\d*$/);
  expect(used).toMatch(/^\d+$/);
  expect(Number(used)).toBeLessThanOrEqual(Number(limit));
  return Number(used);
}

describe('POST /analytics/exports and GET /analytics/exports/{job_id}', () => {
  it('runs the spec as a job as the official CLI waits on it: queued, running, then done with a fresh link of an hour', async () => {
    const spec = { ...WINDOW, metrics: ['events', 'users'], dimensions: ['flow_id', 'name'], conditions: [['name', 'in', FLOW_EVENTS]] };
    const submitted = await api(account, 'POST', '/analytics/exports', { json: spec });
    // The account's job slots, the export just submitted among the busy ones (it takes far longer than the count).
    expect(expectJobSlots(submitted)).toBeGreaterThanOrEqual(1);
    const ack = await expectJson<{ job_id: string; status: string; status_url: string }>(submitted, 202);
    expect(Object.keys(ack).sort()).toEqual(['job_id', 'status', 'status_url']);
    expect(ack.status).toBe('queued');
    expectAbsoluteUrl(ack.status_url, `/v2/accounts/${encodeURIComponent(account.id)}/analytics/exports/${encodeURIComponent(ack.job_id)}`);
    const done = await eventually(async () => {
      const polled = await api(account, 'GET', `/analytics/exports/${ack.job_id}`);
      expectJobSlots(polled);
      const state = await expectJson<ExportStatus>(polled, 200);
      expect(['queued', 'running', 'done']).toContain(state.status);
      if (state.status !== 'done') throw new Error(`the export is still ${state.status}`);
      return state;
    }, 30_000);
    expect(done).toMatchObject({ job_id: ack.job_id, status: 'done', truncated: false });
    expectAbsoluteUrl(done.download_url);
    expect(Math.abs(Date.parse(String(done.expires_at)) - (Date.now() + ONE_HOUR_MS))).toBeLessThan(120_000);
    const downloaded = JSON.parse(await download(String(done.download_url))) as Json[];
    expect(downloaded).toEqual(await rowsOf(spec));
    expect(done.rows).toBe(downloaded.length);
    // The job is listed under /jobs too, in the statuses of the contract's jobs, with the link of a week.
    const job = await expectJson<JobDetail>(await api(account, 'GET', `/jobs/${ack.job_id}`), 200);
    expect(job.status).toBe('COMPLETED');
    // Its worker reported taking it up (the export was `queued` until then), then its outcome.
    expect(job.events.map((event) => event.name)).toEqual(['Exporting', 'Completed']);
    const completed = job.events.find((event) => event.name === 'Completed');
    expect(Math.abs(Date.parse(String(completed?.attributes['expires_at'])) - (Date.now() + ONE_WEEK_MS))).toBeLessThan(120_000);
  });

  it('caps the export at the limit of the spec, as the query is capped', async () => {
    const spec = { ...WINDOW, metrics: ['events'], dimensions: ['name'], limit: 2 };
    const ack = await expectJson<{ job_id: string }>(await api(account, 'POST', '/analytics/exports', { json: spec }), 202);
    const done = await eventually(async () => {
      const state = await expectJson<ExportStatus>(await api(account, 'GET', `/analytics/exports/${ack.job_id}`), 200);
      if (state.status !== 'done') throw new Error(`the export is ${state.status}`);
      return state;
    }, 30_000);
    expect(done).toMatchObject({ rows: 2, truncated: true });
    expect(JSON.parse(await download(String(done.download_url)))).toEqual(await rowsOf(spec));
  });

  it('refuses an invalid spec before creating a job, naming the field', async () => {
    await expectProblem(
      await api(account, 'POST', '/analytics/exports', { json: { ...WINDOW, metrics: ['events'], dimensions: ['colour'] } }),
      400,
      /^dimensions\[0\]/,
    );
    await expectProblem(
      await api(account, 'POST', '/analytics/exports', { json: { ...WINDOW, metrics: ['events'], conditions: [['and']] } }),
      400,
      /^conditions\[0\]/,
    );
  });

  it('answers 404 for an unknown job and for a job that is not an analytics export', async () => {
    await expectProblem(await api(account, 'GET', `/analytics/exports/${randomUUID()}`), 404);
    const importJob = await startImport(account, 'events', ndjsonBody(ndjsonText([EVENTS[0]])));
    await expectProblem(await api(account, 'GET', `/analytics/exports/${importJob.job_id}`), 404);
  });

  it('answers 401 without credentials', async () => {
    await expectProblem(await fetch(accountUrl(account, `/analytics/exports/${randomUUID()}`)), 401);
    await expectProblem(await fetch(accountUrl(account, '/analytics/exports'), { method: 'POST' }), 401);
  });
});
