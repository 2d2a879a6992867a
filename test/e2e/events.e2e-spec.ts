import { EVENT_HISTORY_MAX_LIMIT } from '@guidepost/contracts-http';
import { api, createAccount, eventually, expectJson, expectProblem, parseCsv, type TestAccount } from './support';
import { completedJob } from './support-segments';
import {
  eventuallyInHistory,
  history,
  historyOfAtLeast,
  ndjsonBody,
  ndjsonText,
  setFilteringRules,
  startImport,
  STATUS_OK,
  track,
  uniqueId,
  userPath,
  UTC_MILLIS,
  type HistoryEvent,
  type Json,
} from './support-people';

/**
 * Tracking events and reading them back: the track endpoint validates and acknowledges once durable,
 * history lists a user's events newest first within seconds, in the time zone asked for.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

const INSTANT = '2024-05-01T09:30:00.000Z';

describe('POST /users/{user_id}/events', () => {
  it('acknowledges an event, which then appears in history with its attributes', async () => {
    const userId = uniqueId('track');
    const attributes = { plan: 'pro', seats: 3, beta: true, nested: { a: [1, 2] }, _identity: { email: 'ann@example.com' } };
    await track(account, userId, { name: 'signup', timestamp: INSTANT, attributes });

    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event).toEqual({ user_id: userId, name: 'signup', timestamp: INSTANT, attributes });
  });

  it('leaves attributes out of history for an event tracked without them', async () => {
    const userId = uniqueId('bare');
    await track(account, userId, { name: 'bare_event', timestamp: INSTANT });
    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event).toEqual({ user_id: userId, name: 'bare_event', timestamp: INSTANT });
  });

  it('accepts group_id, context.url, extra whitespace and a charset', async () => {
    const userId = uniqueId('context');
    const body = `  {\n "name": "page_seen", "timestamp": "${INSTANT}", "group_id": "acme",\n  "context": { "url": "https://app.example.com/home" } }\n`;
    const response = await api(account, 'POST', userPath(userId, 'events'), {
      body,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(await expectJson(response, 200)).toEqual(STATUS_OK);
    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event).toMatchObject({ user_id: userId, name: 'page_seen', timestamp: INSTANT });
  });

  it.each([
    ['-04:00', '2024-05-01T05:30:00-04:00'],
    ['+05:30 with milliseconds', '2024-05-01T15:00:00.000+05:30'],
    ['Z without milliseconds', '2024-05-01T09:30:00Z'],
  ])('accepts a timestamp with offset %s and stores the same instant', async (_label, timestamp) => {
    const userId = uniqueId('offset');
    await track(account, userId, { name: 'offset_event', timestamp });
    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event.timestamp).toBe(INSTANT);
  });

  it('records svc_custom: (click-to-track) events like any other', async () => {
    const userId = uniqueId('custom');
    await track(account, userId, { name: 'svc_custom:clicked_help', timestamp: INSTANT, attributes: { button: 'help' } });
    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event).toEqual({ user_id: userId, name: 'svc_custom:clicked_help', timestamp: INSTANT, attributes: { button: 'help' } });
  });

  describe('invalid events are refused and never stored', () => {
    const userId = uniqueId('invalid');
    const valid = { name: 'fine', timestamp: INSTANT };

    it.each([
      ['a missing name', { timestamp: INSTANT }, /name/],
      ['an empty name', { ...valid, name: '' }, /name/],
      ['a name that is not a string', { ...valid, name: 42 }, /name/],
      ['a missing timestamp', { name: 'fine' }, /timestamp/],
      ['a timestamp without a zone', { ...valid, timestamp: '2024-05-01T09:30:00' }, /timestamp/],
      ['a date without a time', { ...valid, timestamp: '2024-05-01' }, /timestamp/],
      ['a timestamp that is not a date', { ...valid, timestamp: 'yesterday' }, /timestamp/],
      ['an impossible date', { ...valid, timestamp: '2024-02-30T10:00:00Z' }, /timestamp/],
      ['a numeric timestamp', { ...valid, timestamp: 1714555800000 }, /timestamp/],
      ['attributes that are a string', { ...valid, attributes: 'plan=pro' }, /attributes/],
      ['attributes that are an array', { ...valid, attributes: [1, 2] }, /attributes/],
      ['an _identity that is not an object', { ...valid, attributes: { _identity: 'ann' } }, /_identity/],
      ['a group_id that is not a string', { ...valid, group_id: 7 }, /group_id/],
      ['a context that is not an object', { ...valid, context: 'home' }, /context/],
      ['a context.url that is not a string', { ...valid, context: { url: 5 } }, /url/],
    ])('rejects %s (400 naming the field)', async (_label, body, field) => {
      await expectProblem(await api(account, 'POST', userPath(userId, 'events'), { json: body }), 400, field);
    });

    it.each([
      ['malformed JSON', '{"name": "fine", '],
      ['a JSON array', `[${JSON.stringify(valid)}]`],
      ['a JSON string', '"fine"'],
    ])('rejects a body that is %s (400)', async (_label, body) => {
      await expectProblem(
        await api(account, 'POST', userPath(userId, 'events'), { body, headers: { 'Content-Type': 'application/json' } }),
        400,
      );
    });

    it.each([
      ['text/plain', 'name=fine'],
      ['text/csv', `name,timestamp\nfine,${INSTANT}\n`],
      ['application/ndjson', `${JSON.stringify(valid)}\n`],
    ])('rejects Content-Type %s (415)', async (contentType, body) => {
      await expectProblem(await api(account, 'POST', userPath(userId, 'events'), { body, headers: { 'Content-Type': contentType } }), 415);
    });

    it('stored none of the refused events', async () => {
      // A valid event tracked after all of them reaches history; nothing refused came before it.
      await track(account, userId, { name: 'after_refusals', timestamp: INSTANT });
      await historyOfAtLeast(account, userId, 1);
      expect((await history(account, userId)).map((event) => event.name)).toEqual(['after_refusals']);
    });
  });
});

describe('GET /users/{user_id}/events', () => {
  it('lists the most recent event first, whatever order they were tracked in', async () => {
    const userId = uniqueId('order');
    await track(account, userId, { name: 'second', timestamp: '2024-05-02T00:00:00Z' });
    await track(account, userId, { name: 'third', timestamp: '2024-05-03T00:00:00Z' });
    await track(account, userId, { name: 'first', timestamp: '2024-05-01T00:00:00Z' });

    const events = await historyOfAtLeast(account, userId, 3);
    expect(events.map((event) => event.name)).toEqual(['third', 'second', 'first']);
    for (const event of events) expect(event.timestamp).toMatch(UTC_MILLIS);
  });

  it('answers [] for a user with no events', async () => {
    expect(await history(account, uniqueId('silent'))).toEqual([]);
  });

  it("never lists another account's events", async () => {
    const userId = uniqueId('private');
    await track(account, userId, { name: 'mine', timestamp: INSTANT });
    await historyOfAtLeast(account, userId, 1);
    expect(await history(await createAccount(), userId)).toEqual([]);
  });

  describe('limit', () => {
    const userId = uniqueId('many');
    const EVENT_COUNT = 120;
    /** Timestamps one minute apart, event i at minute i: the newest is the last. */
    const timestampOf = (index: number) => new Date(Date.UTC(2024, 4, 1, 0, index)).toISOString();

    beforeAll(async () => {
      const rows = Array.from({ length: EVENT_COUNT }, (_, index) => ({
        user_id: userId,
        name: `event_${index}`,
        timestamp: timestampOf(index),
      }));
      const { completed } = await completedJob(account, await startImport(account, 'events', ndjsonBody(ndjsonText(rows))));
      expect(completed.attributes).toMatchObject({ ingestions_completed: EVENT_COUNT, ingestions_failed: 0 });
      await historyOfAtLeast(account, userId, EVENT_COUNT, '?limit=1000');
    });

    it('returns at most 100 events by default: the 100 most recent', async () => {
      const events = await history(account, userId);
      expect(events).toHaveLength(100);
      expect(events.map((event) => event.name)).toEqual(Array.from({ length: 100 }, (_, index) => `event_${EVENT_COUNT - 1 - index}`));
    });

    it('returns only the newest event with limit=1', async () => {
      expect(await history(account, userId, '?limit=1')).toEqual([
        { user_id: userId, name: `event_${EVENT_COUNT - 1}`, timestamp: timestampOf(EVENT_COUNT - 1) },
      ]);
    });

    it(`returns every event with the largest limit (${EVENT_HISTORY_MAX_LIMIT})`, async () => {
      expect(await history(account, userId, `?limit=${EVENT_HISTORY_MAX_LIMIT}`)).toHaveLength(EVENT_COUNT);
    });

    it('ignores unknown query parameters', async () => {
      expect(await history(account, userId, '?limit=2&page=3&sort=asc')).toEqual(await history(account, userId, '?limit=2'));
    });
  });

  describe('invalid limit', () => {
    const userId = uniqueId('limits');

    it('answers 400 mentioning the maximum for a limit above it', async () => {
      const problem = await expectProblem(
        await api(account, 'GET', `${userPath(userId, 'events')}?limit=${EVENT_HISTORY_MAX_LIMIT + 1}`),
        400,
        /limit/,
      );
      expect(problem.detail.replace(/[\s,_]/g, '')).toContain(String(EVENT_HISTORY_MAX_LIMIT));
    });

    it.each(['abc', '0', '-1', '1.5'])('answers 400 naming limit for limit=%s', async (limit) => {
      await expectProblem(await api(account, 'GET', `${userPath(userId, 'events')}?limit=${limit}`), 400, /limit/);
    });
  });

  describe('time_zone', () => {
    const userId = uniqueId('zoned');

    beforeAll(async () => {
      await track(account, userId, { name: 'zoned_event', timestamp: INSTANT, attributes: { plan: 'pro' } });
      await historyOfAtLeast(account, userId, 1);
    });

    it.each([
      ['UTC by default', '', INSTANT],
      ['0', '?time_zone=0', INSTANT],
      ['+00:00', '?time_zone=%2B00:00', INSTANT],
      ['-04:00', '?time_zone=-04:00', '2024-05-01T05:30:00.000-04:00'],
      ['-240 (minutes)', '?time_zone=-240', '2024-05-01T05:30:00.000-04:00'],
      ['+05:30', '?time_zone=%2B05:30', '2024-05-01T15:00:00.000+05:30'],
      ['330 (minutes)', '?time_zone=330', '2024-05-01T15:00:00.000+05:30'],
      ['+14:00', '?time_zone=%2B14:00', '2024-05-01T23:30:00.000+14:00'],
      ['-12:00 across midnight', '?time_zone=-12:00', '2024-04-30T21:30:00.000-12:00'],
      ['04:00 without a sign (east, as +04:00)', '?time_zone=04:00', '2024-05-01T13:30:00.000+04:00'],
    ])('renders timestamps in %s as the same instant', async (_label, query, rendered) => {
      const [event] = await history(account, userId, query);
      expect(event).toEqual({ user_id: userId, name: 'zoned_event', timestamp: rendered, attributes: { plan: 'pro' } });
      expect(Date.parse(event.timestamp)).toBe(Date.parse(INSTANT));
    });

    it.each(['abc', '%2B15:00', '-841', '841', '4:00', '15:00', '%2B5:30', '-04:60', '1.5'])(
      'answers 400 naming time_zone for time_zone=%s',
      async (timeZone) => {
        await expectProblem(await api(account, 'GET', `${userPath(userId, 'events')}?time_zone=${timeZone}`), 400, /time_zone/);
      },
    );
  });

  it('renders history as CSV with one attributes.<key> column per attribute key', async () => {
    const userId = uniqueId('csv');
    await track(account, userId, { name: 'first', timestamp: '2024-05-01T00:00:00Z', attributes: { plan: 'pro', seats: 3 } });
    await track(account, userId, { name: 'second', timestamp: '2024-05-02T00:00:00Z', attributes: { beta: true, tags: ['a', 'b'] } });
    await track(account, userId, { name: 'third', timestamp: '2024-05-03T00:00:00Z' });
    await historyOfAtLeast(account, userId, 3);

    const response = await api(account, 'GET', userPath(userId, 'events'), { headers: { Accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const csv = parseCsv(await response.text());
    expect([...csv.header].sort()).toEqual(
      ['attributes.beta', 'attributes.plan', 'attributes.seats', 'attributes.tags', 'name', 'timestamp', 'user_id'].sort(),
    );
    expect(csv.rows).toEqual([
      {
        user_id: userId,
        name: 'third',
        timestamp: '2024-05-03T00:00:00.000Z',
        'attributes.beta': '',
        'attributes.plan': '',
        'attributes.seats': '',
        'attributes.tags': '',
      },
      {
        user_id: userId,
        name: 'second',
        timestamp: '2024-05-02T00:00:00.000Z',
        'attributes.beta': 'true',
        'attributes.plan': '',
        'attributes.seats': '',
        'attributes.tags': '["a","b"]',
      },
      {
        user_id: userId,
        name: 'first',
        timestamp: '2024-05-01T00:00:00.000Z',
        'attributes.beta': '',
        'attributes.plan': 'pro',
        'attributes.seats': '3',
        'attributes.tags': '',
      },
    ]);
  });
});

describe('ingestion filtering rules on event names', () => {
  let filtered: TestAccount;

  beforeAll(async () => {
    filtered = await createAccount();
  });

  /**
   * Tracks `dropped` then `kept` (later) for a fresh user until `kept` shows in history and `dropped`
   * does not: the ingestion service learns the rules from a bus message, so the first probes may
   * still run under the old rules.
   */
  async function expectDroppedOnceRulesApply(dropped: Json, kept: Json): Promise<HistoryEvent[]> {
    return eventually(
      async () => {
        const userId = uniqueId('filtered');
        const response = await api(filtered, 'POST', userPath(userId, 'events'), { json: dropped });
        // A filtered event is still acknowledged: the client did nothing wrong.
        expect(await expectJson(response, 200)).toEqual(STATUS_OK);
        await track(filtered, userId, kept);
        const marker = await eventuallyInHistory(filtered, userId, (event) => event.name === kept['name']);
        const events = await history(filtered, userId);
        expect(events.map((event) => event.name)).toEqual([marker.name]);
        return events;
      },
      30_000,
      300,
    );
  }

  it('deny mode: a listed event name is acknowledged but never appears in history', async () => {
    await setFilteringRules(filtered, { mode: 'deny', event_names: ['noisy_event'] });
    await expectDroppedOnceRulesApply(
      { name: 'noisy_event', timestamp: '2024-05-01T00:00:00Z' },
      { name: 'useful_event', timestamp: '2024-05-02T00:00:00Z' },
    );
  });

  it('allow mode: only listed event names are kept', async () => {
    await setFilteringRules(filtered, { mode: 'allow', event_names: ['wanted_event'] });
    await expectDroppedOnceRulesApply(
      { name: 'unlisted_event', timestamp: '2024-05-01T00:00:00Z' },
      { name: 'wanted_event', timestamp: '2024-05-02T00:00:00Z' },
    );
  });
});
