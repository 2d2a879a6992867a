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

beforeAll(async () => {
  account = await createAccount();
  const ack = await startImport(account, 'events', ndjsonBody(ndjsonText(EVENTS)));
  const { completed } = await completedJob(account, ack);
  expect(completed.attributes).toMatchObject({ ingestions_completed: EVENTS.length, ingestions_failed: 0 });
  // Queries read the event store: wait until every user's events are there.
  await Promise.all(
    [...new Set(EVENTS.map((event) => event.user_id))].map((user) =>
      historyOfAtLeast(account, user, EVENTS.filter((event) => event.user_id === user).length),
    ),
  );
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
    web('step_error', 'ben', 'f-2', 's-3'),
    web('step_child_error', 'ana', 'f-1', 's-2'),
    mobileError('cai', 'e-1', 's-7', 'no target'),
    mobileError('dee', 'e-1', 's-7', 'no target'),
    mobileError('cai', 'e-1', 's-8', 'timed out'),
  ];
  const sdkWindow = { start_time: `${day}T00:00:00Z`, end_time: '2025-11-04T00:00:00Z' };
  let sdkAccount: TestAccount;

  beforeAll(async () => {
    sdkAccount = await createAccount();
    const { completed } = await completedJob(sdkAccount, await startImport(sdkAccount, 'events', ndjsonBody(ndjsonText(SDK_EVENTS))));
    expect(completed.attributes).toMatchObject({ ingestions_completed: SDK_EVENTS.length, ingestions_failed: 0 });
    await Promise.all(
      [...new Set(SDK_EVENTS.map((event) => event.user_id))].map((user) =>
        historyOfAtLeast(sdkAccount, user, SDK_EVENTS.filter((event) => event.user_id === user).length),
      ),
    );
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
      { flow_id: 'f-1', experience_id: '', user_agent_browser: 'Chrome', platform: 'web', events: 1, users: 1 },
      { flow_id: 'f-2', experience_id: '', user_agent_browser: 'Safari', platform: 'web', events: 1, users: 1 },
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
      expect(['running', 'done']).toContain(state.status);
      if (state.status === 'running') throw new Error('the export is still running');
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
