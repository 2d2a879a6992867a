import { EXPORT_MAX_EMAILS, EXPORT_MAX_EVENTS } from '@guidepost/contracts-http';
import { api, createAccount, expectProblem, parseCsv, waitForJob, type JobDetail, type TestAccount } from './support';
import { completedJob, download, expectAbsoluteUrl, expectAccepted, ndjsonObjects, ONE_WEEK_MS } from './support-segments';
import { byUserThenTimestamp, historyOfAtLeast, ndjsonBody, ndjsonText, startImport, track, type Json } from './support-people';

/**
 * The bulk event export: a JSON body with a condition grammar, answered with a job whose `Completed`
 * event links to NDJSON or CSV that anyone holding the link can download for a week. The account holds
 * only the events imported here, so every export's content is known exactly.
 */

let account: TestAccount;

interface ExportedEvent {
  readonly name: string;
  readonly timestamp: string;
  readonly user_id: string;
  readonly attributes: Json;
}

/** The account's events, in March 2024, plus one in January (outside the usual range). */
const EVENTS = {
  aliceSignup: {
    user_id: 'alice',
    group_id: 'acme',
    name: 'signup',
    timestamp: '2024-03-01T10:00:00Z',
    attributes: { plan: 'pro', flow_id: 'welcome' },
  },
  aliceFlow: { user_id: 'alice', name: 'Flow Completed', timestamp: '2024-03-02T10:00:00Z', attributes: { flow_id: 'welcome', step: 3 } },
  bobSignup: { user_id: 'bob', name: 'signup', timestamp: '2024-03-03T10:00:00Z', attributes: { plan: 'free' } },
  bobClick: { user_id: 'bob', name: 'svc_custom:clicked_help', timestamp: '2024-03-04T10:00:00Z' },
  carolNps: { user_id: 'carol', name: 'nps', timestamp: '2024-03-05T10:00:00Z', attributes: { nps_feedback: 'Great, "really"', score: 9 } },
  carolFlow: { user_id: 'carol', name: 'flow_started', timestamp: '2024-03-06T10:00:00Z', attributes: { flow_id: 'tour', done: false } },
  aliceOld: { user_id: 'alice', name: 'old_event', timestamp: '2024-01-15T10:00:00Z', attributes: { plan: 'trial' } },
} as const;
type EventKey = keyof typeof EVENTS;
const MARCH: EventKey[] = ['aliceSignup', 'aliceFlow', 'bobSignup', 'bobClick', 'carolNps', 'carolFlow'];
const MARCH_RANGE = { start_time: '2024-03-01T00:00:00Z', end_time: '2024-04-01T00:00:00Z' };

/** How an event comes out of a JSON export in UTC: milliseconds, `Z`, and `attributes` always an object. */
function exported(key: EventKey): ExportedEvent {
  const event = EVENTS[key];
  return {
    name: event.name,
    timestamp: event.timestamp.replace('Z', '.000Z'),
    user_id: event.user_id,
    attributes: 'attributes' in event ? { ...event.attributes } : {},
  };
}

function sortedExports(keys: readonly EventKey[]): ExportedEvent[] {
  return byUserThenTimestamp(keys.map(exported));
}

beforeAll(async () => {
  account = await createAccount();
  const ack = await startImport(account, 'events', ndjsonBody(ndjsonText(Object.values(EVENTS))));
  const { completed } = await completedJob(account, ack);
  expect(completed.attributes).toMatchObject({ ingestions_completed: Object.keys(EVENTS).length, ingestions_failed: 0 });
  // Exports read the event store: wait until every event is there.
  await Promise.all([historyOfAtLeast(account, 'alice', 3), historyOfAtLeast(account, 'bob', 2), historyOfAtLeast(account, 'carol', 2)]);
});

interface FinishedExport {
  readonly job: JobDetail;
  readonly attributes: Json;
  readonly text: string;
}

/** Requests an export, waits for COMPLETED, checks the link attributes and downloads the file without credentials. */
async function exportEvents(body: Json): Promise<FinishedExport> {
  const ack = await expectAccepted(account, await api(account, 'POST', '/export/events', { json: body }));
  const { job, completed } = await completedJob(account, ack);
  expect(job.name).toBe('Export Events');
  expectAbsoluteUrl(completed.attributes['signed_s3_url']);
  const expiry = Date.parse(String(completed.attributes['expires_at']));
  expect(Math.abs(expiry - (Date.now() + ONE_WEEK_MS))).toBeLessThan(120_000);
  const text = await download(completed.attributes['signed_s3_url'] as string);
  return { job, attributes: completed.attributes, text };
}

/** The lines of a JSON export as written, each with the `id` of its event. */
async function exportLines(body: Json): Promise<(ExportedEvent & { readonly id: string })[]> {
  const { attributes, text } = await exportEvents({ format: 'json', ...MARCH_RANGE, ...body });
  const lines = ndjsonObjects(text) as (ExportedEvent & { readonly id: string })[];
  expect(attributes['rows']).toBe(lines.length);
  for (const line of lines) expect(line.id).toMatch(/^\S+$/);
  return lines;
}

/** The lines of a JSON export without their ids (checked by `exportLines`), to compare with `exported`. */
async function exportJson(body: Json): Promise<ExportedEvent[]> {
  return (await exportLines(body)).map(({ id: _id, ...line }) => line);
}

describe('JSON export', () => {
  it('exports every event in the range as NDJSON lines with name, timestamp, user_id, id, attributes', async () => {
    const lines = await exportLines({ conditions: [] });
    for (const line of lines) expect(Object.keys(line).sort()).toEqual(['attributes', 'id', 'name', 'timestamp', 'user_id']);
    expect(byUserThenTimestamp(lines.map(({ id: _id, ...line }) => line))).toEqual(sortedExports(MARCH));
  });

  it('gives each event an id of its own, the same in every export, so that a client can drop copies', async () => {
    const idsByEvent = (lines: { id: string; name: string; timestamp: string }[]) =>
      Object.fromEntries(lines.map((line) => [`${line.name} at ${line.timestamp}`, line.id]));
    const all = idsByEvent(await exportLines({ conditions: [] }));
    expect(new Set(Object.values(all)).size).toBe(MARCH.length);
    const bob = idsByEvent(await exportLines({ conditions: [['user_id', '==', 'bob']], time_zone: '+00:00' }));
    expect(Object.keys(bob)).toHaveLength(2);
    for (const [event, id] of Object.entries(bob)) expect(all[event]).toBe(id);
  });

  it("writes the events by user, each user's in chronological order (the event store's own order)", async () => {
    expect(await exportJson({ conditions: [] })).toEqual(MARCH.map(exported));
  });

  it('includes an event at start_time and excludes one at end_time', async () => {
    const lines = await exportJson({ conditions: [], start_time: EVENTS.aliceFlow.timestamp, end_time: EVENTS.bobClick.timestamp });
    expect(lines).toEqual([exported('aliceFlow'), exported('bobSignup')]);
  });

  it('takes start_time and end_time as milliseconds since 1970', async () => {
    const lines = await exportJson({
      conditions: [],
      start_time: Date.parse('2024-03-02T00:00:00Z'),
      end_time: Date.parse('2024-03-04T00:00:00Z'),
    });
    expect(byUserThenTimestamp(lines)).toEqual(sortedExports(['aliceFlow', 'bobSignup']));
  });

  it('takes an ISO range with offsets, and no end_time means up to now', async () => {
    const ranged = await exportJson({ conditions: [], start_time: '2024-03-02T00:00:00+02:00', end_time: '2024-03-04T09:00:00-02:00' });
    expect(byUserThenTimestamp(ranged)).toEqual(sortedExports(['aliceFlow', 'bobSignup', 'bobClick']));
    const open = await exportJson({ conditions: [], start_time: '2024-01-01T00:00:00Z', end_time: undefined });
    expect(byUserThenTimestamp(open)).toEqual(sortedExports([...MARCH, 'aliceOld']));
  });

  it('takes dates as whole days and date-times without a zone, both in time_zone, and an offset without its sign', async () => {
    const instants = (lines: ExportedEvent[]) => lines.map((line) => Date.parse(line.timestamp)).sort();
    const instantsOf = (keys: EventKey[]) => keys.map((key) => Date.parse(EVENTS[key].timestamp)).sort();
    // The 2nd and the 3rd of March in UTC, both whole days.
    const days = await exportJson({ conditions: [], start_time: '2024-03-02', end_time: '2024-03-03', time_zone: '00:00' });
    expect(instants(days)).toEqual(instantsOf(['aliceFlow', 'bobSignup']));
    // The 5th of March at +05:30 runs from 18:30 UTC on the 4th: bobClick (10:00 UTC on the 4th) is before it.
    const zonedDay = await exportJson({ conditions: [], start_time: '2024-03-05', end_time: '2024-03-05', time_zone: '05:30' });
    expect(instants(zonedDay)).toEqual(instantsOf(['carolNps']));
    // 06:00 at -04:00 is 10:00 UTC: aliceFlow is at the start (included), bobClick at the end (excluded).
    const local = await exportJson({ conditions: [], start_time: '2024-03-02T06:00:00', end_time: '2024-03-04T06:00:00', time_zone: -240 });
    expect(instants(local)).toEqual(instantsOf(['aliceFlow', 'bobSignup']));
  });

  it.each([
    ['-04:00', '-04:00', '2024-03-01T06:00:00.000-04:00'],
    ['330 (minutes)', 330, '2024-03-01T15:30:00.000+05:30'],
    ['+00:00', '+00:00', '2024-03-01T10:00:00.000Z'],
  ])('renders timestamps in time_zone %s as the same instant', async (_label, timeZone, rendered) => {
    const lines = await exportJson({
      conditions: [
        ['name', '==', 'signup'],
        ['user_id', '==', 'alice'],
      ],
      time_zone: timeZone,
    });
    expect(lines.map((line) => line.timestamp)).toEqual([rendered]);
    expect(Date.parse(lines[0].timestamp)).toBe(Date.parse(EVENTS.aliceSignup.timestamp));
  });

  it('completes when email addresses are given (one or several), and the link works', async () => {
    for (const email of ['owner@example.com', ['owner@example.com', 'analyst@example.com']]) {
      expect(await exportJson({ conditions: [['user_id', '==', 'bob']], email })).toHaveLength(2);
    }
  });

  it("ignores a field the request does not name, such as a sync tool's _sync_id (docs/api-contract.md#unknown-fields)", async () => {
    const request = { conditions: [['user_id', '==', 'bob']], _sync_id: 'sync-7f3a' };
    expect(await exportJson(request)).toEqual(sortedExports(['bobSignup', 'bobClick']));
  });

  it('exports nothing, with rows 0, when nothing matches', async () => {
    expect(await exportJson({ conditions: [['name', '==', 'never-happened']] })).toEqual([]);
  });
});

describe('CSV export', () => {
  it('has the header name,timestamp,user_id,id and the sorted attributes.<key> columns, each row the id of the JSON line', async () => {
    const { attributes, text } = await exportEvents({ format: 'csv', conditions: [], ...MARCH_RANGE });
    expect(text.split(/\r?\n/)[0]).toBe(
      'name,timestamp,user_id,id,attributes.done,attributes.flow_id,attributes.nps_feedback,attributes.plan,attributes.score,attributes.step',
    );
    const parsed = parseCsv(text);
    expect(attributes['rows']).toBe(parsed.rows.length);
    const jsonIds = new Map((await exportLines({ conditions: [] })).map((line) => [`${line.name} at ${line.timestamp}`, line.id]));
    expect(parsed.rows.map((row) => row['id'])).toEqual(parsed.rows.map((row) => jsonIds.get(`${row['name']} at ${row['timestamp']}`)));
    const csv = { rows: parsed.rows.map(({ id: _id, ...row }) => row) };
    const cell = (value: string | number | boolean | undefined) => (value === undefined ? '' : String(value));
    const expected = MARCH.map((key) => {
      const event = exported(key);
      return {
        name: event.name,
        timestamp: event.timestamp,
        user_id: event.user_id,
        ...Object.fromEntries(
          ['done', 'flow_id', 'nps_feedback', 'plan', 'score', 'step'].map((key) => [
            `attributes.${key}`,
            cell(event.attributes[key] as string | number | boolean | undefined),
          ]),
        ),
      };
    });
    expect(byUserThenTimestamp(csv.rows)).toEqual(byUserThenTimestamp(expected));
  });

  it('has only the event columns when no exported event has attributes', async () => {
    const { text } = await exportEvents({ format: 'csv', conditions: [['name', '==', 'svc_custom:clicked_help']], ...MARCH_RANGE });
    const csv = parseCsv(text);
    expect(csv.header).toEqual(['name', 'timestamp', 'user_id', 'id']);
    expect(csv.rows).toEqual([
      { name: 'svc_custom:clicked_help', timestamp: '2024-03-04T10:00:00.000Z', user_id: 'bob', id: expect.any(String) },
    ]);
  });
});

describe('an export heavier than the others', () => {
  /** One event of 999 attributes of 1 KB each: a megabyte of attributes, and a CSV column per attribute. */
  const WIDE_ATTRIBUTES = Object.fromEntries(
    Array.from({ length: 999 }, (_, index) => [`key_${String(index).padStart(3, '0')}`, 'x'.repeat(1024)]),
  );

  it("ends, and another account's export requested right after it completes", async () => {
    const [heavy, light] = await Promise.all([createAccount(), createAccount()]);
    await track(heavy, 'wide', { name: 'wide', timestamp: '2024-03-01T10:00:00Z', attributes: WIDE_ATTRIBUTES });
    await track(light, 'plain', { name: 'plain', timestamp: '2024-03-01T10:00:00Z' });
    await Promise.all([historyOfAtLeast(heavy, 'wide', 1), historyOfAtLeast(light, 'plain', 1)]);
    const request = (account: TestAccount, format: string) =>
      api(account, 'POST', '/export/events', { json: { format, conditions: [], ...MARCH_RANGE } });
    const heavyAck = await expectAccepted(heavy, await request(heavy, 'csv'));
    const lightAck = await expectAccepted(light, await request(light, 'json'));
    // Waited for with the default timeout of a job: an export retried for ever at the head of its topic fails it.
    const { completed } = await completedJob(light, lightAck);
    expect(ndjsonObjects(await download(String(completed.attributes['signed_s3_url'])))).toHaveLength(1);
    const wide = await waitForJob(heavy, heavyAck.job_url);
    expect(wide.status).toBe('COMPLETED');
    const csv = parseCsv(await download(String(wide.events.find((event) => event.name === 'Completed')?.attributes['signed_s3_url'])));
    expect(csv.header).toEqual(['name', 'timestamp', 'user_id', 'id', ...Object.keys(WIDE_ATTRIBUTES).map((key) => `attributes.${key}`)]);
    expect(csv.rows).toEqual([
      {
        name: 'wide',
        timestamp: '2024-03-01T10:00:00.000Z',
        user_id: 'wide',
        id: expect.any(String),
        ...Object.fromEntries(Object.entries(WIDE_ATTRIBUTES).map(([key, value]) => [`attributes.${key}`, value])),
      },
    ]);
  });
});

describe('conditions', () => {
  it.each<[string, unknown[], EventKey[]]>([
    ['== on name', [['name', '==', 'signup']], ['aliceSignup', 'bobSignup']],
    ['!= on name', [['name', '!=', 'signup']], ['aliceFlow', 'bobClick', 'carolNps', 'carolFlow']],
    ['like with % (case-sensitive)', [['name', 'like', 'flow%']], ['carolFlow']],
    ['like with _', [['name', 'like', 'sign_p']], ['aliceSignup', 'bobSignup']],
    ['not like', [['name', 'not like', '%sign%']], ['aliceFlow', 'bobClick', 'carolNps', 'carolFlow']],
    ['ilike', [['name', 'ilike', 'FLOW%']], ['aliceFlow', 'carolFlow']],
    ['not ilike', [['name', 'not ilike', 'flow%']], ['aliceSignup', 'bobSignup', 'bobClick', 'carolNps']],
    ['like on a prefix with a colon', [['name', 'like', 'svc_custom:%']], ['bobClick']],
    ['in', [['name', 'in', ['nps', 'signup']]], ['aliceSignup', 'bobSignup', 'carolNps']],
    ['not in on user_id', [['user_id', 'not in', ['alice']]], ['bobSignup', 'bobClick', 'carolNps', 'carolFlow']],
    ['== on group_id', [['group_id', '==', 'acme']], ['aliceSignup']],
    ['is not null on an attribute', [['nps_feedback', 'is not null']], ['carolNps']],
    ['is null on an attribute', [['flow_id', 'is null']], ['bobSignup', 'bobClick', 'carolNps']],
    ['== on an attribute', [['flow_id', '==', 'welcome']], ['aliceSignup', 'aliceFlow']],
    ['== on a numeric attribute', [['score', '==', 9]], ['carolNps']],
    ['== on a boolean attribute', [['done', '==', false]], ['carolFlow']],
    [
      'implicit AND of top-level conditions',
      [
        ['user_id', '==', 'alice'],
        ['name', '==', 'signup'],
      ],
      ['aliceSignup'],
    ],
    ['or', [['or', ['name', '==', 'nps'], ['user_id', '==', 'bob']]], ['bobSignup', 'bobClick', 'carolNps']],
    [
      'and nested in or',
      [['or', ['name', '==', 'nps'], ['and', ['user_id', '==', 'alice'], ['step', '==', 3]]]],
      ['aliceFlow', 'carolNps'],
    ],
    [
      'or nested in and, beside another condition',
      [
        ['and', ['or', ['plan', '==', 'pro'], ['plan', '==', 'free']], ['user_id', '!=', 'alice']],
        ['name', 'like', '%up'],
      ],
      ['bobSignup'],
    ],
  ])('selects by %s', async (_label, conditions, expected) => {
    expect(byUserThenTimestamp(await exportJson({ conditions }))).toEqual(sortedExports(expected));
  });

  it('never splices a value into the query: quotes and SQL in values are matched literally', async () => {
    expect(await exportJson({ conditions: [['name', '==', "signup' OR '1'='1"]] })).toEqual([]);
    expect(await exportJson({ conditions: [["plan') OR 1=1 --", 'is not null']] })).toEqual([]);
  });
});

describe('pagination with limit and offset', () => {
  it('splits the export into disjoint pages that together hold every event', async () => {
    const pages = [];
    for (const offset of [0, 2, 4]) {
      const page = await exportJson({ conditions: [], limit: 2, offset });
      expect(page).toHaveLength(2);
      pages.push(...page);
    }
    expect(byUserThenTimestamp(pages)).toEqual(sortedExports(MARCH));
    expect(await exportJson({ conditions: [], limit: 2, offset: 6 })).toEqual([]);
  });

  it('exports at most limit events', async () => {
    expect(await exportJson({ conditions: [], limit: 1 })).toHaveLength(1);
    expect(await exportJson({ conditions: [], limit: EXPORT_MAX_EVENTS })).toHaveLength(MARCH.length);
  });
});

describe('invalid export requests', () => {
  const valid = { format: 'json', conditions: [], start_time: '2024-03-01T00:00:00Z' };
  const send = (body: unknown) => api(account, 'POST', '/export/events', { json: body });

  it.each([
    ['a missing format', { conditions: [], start_time: valid.start_time }, /format/],
    ['a missing conditions', { format: 'json', start_time: valid.start_time }, /conditions/],
    ['a missing start_time', { format: 'json', conditions: [] }, /start_time/],
    ['an unknown format', { ...valid, format: 'xml' }, /format/],
    ['conditions that are not an array', { ...valid, conditions: 'name == signup' }, /conditions/],
    ['a start_time that is not a date', { ...valid, start_time: 'last week' }, /start_time/],
    ['a start_time without seconds', { ...valid, start_time: '2024-03-01T00:00' }, /start_time/],
    ['a start_time on a day that does not exist', { ...valid, start_time: '2023-02-29' }, /start_time/],
    ['an end_time that is not a date', { ...valid, end_time: 'tomorrow' }, /end_time/],
    ['an end_time before start_time', { ...valid, end_time: '2024-02-01T00:00:00Z' }, /end_time/],
    ['a negative start_time in milliseconds', { ...valid, start_time: -1 }, /start_time/],
    [`a limit over ${EXPORT_MAX_EVENTS}`, { ...valid, limit: EXPORT_MAX_EVENTS + 1 }, /limit/],
    ['a limit of 0', { ...valid, limit: 0 }, /limit/],
    ['a negative offset', { ...valid, offset: -1 }, /offset/],
    ['a time_zone out of range', { ...valid, time_zone: '+15:00' }, /time_zone/],
    ['a time_zone that is not an offset', { ...valid, time_zone: 'Europe/Paris' }, /time_zone/],
    ['an invalid email', { ...valid, email: 'not-an-email' }, /email/],
    ['an invalid email in a list', { ...valid, email: ['owner@example.com', 'nope'] }, /email/],
    [
      `more than ${EXPORT_MAX_EMAILS} addresses to mail`,
      { ...valid, email: Array.from({ length: EXPORT_MAX_EMAILS + 1 }, (_, index) => `ops${index}@example.com`) },
      `email: must NOT have more than ${EXPORT_MAX_EMAILS} items`,
    ],
  ])('answers 400 naming the field for %s', async (_label, body, field) => {
    await expectProblem(await send(body), 400, field);
  });

  it.each([
    ['an unknown operator', ['name', '>', 'signup']],
    ['an unknown conjunction', ['xor', ['name', '==', 'a'], ['name', '==', 'b']]],
    ['in with a value that is not an array', ['name', 'in', 'signup']],
    ['in with an empty array', ['name', 'in', []]],
    ['a comparison without a value', ['name', '==']],
    ['is null with a value', ['name', 'is null', 'x']],
    ['a comparison with an extra element', ['name', '==', 'a', 'b']],
    ['a value that is an object', ['name', '==', { a: 1 }]],
    ['a condition that is not an array', 'name == signup'],
    ['a conjunction without conditions', ['or']],
    ['a bad condition nested in a conjunction', ['or', ['name', '==', 'a'], ['name', 'equals', 'b']]],
  ])('answers 400 naming the condition for %s', async (_label, condition) => {
    const problem = await expectProblem(await send({ ...valid, conditions: [['name', '==', 'fine'], condition] }), 400, /condition/i);
    // The second condition (index 1) is the one at fault, and the answer says which.
    expect(problem.detail).toMatch(/\b1\b|\[1\]|\/1\b/);
  });

  it('answers 400 for malformed JSON and 415 for other content types', async () => {
    await expectProblem(
      await api(account, 'POST', '/export/events', { body: '{"format": ', headers: { 'Content-Type': 'application/json' } }),
      400,
    );
    await expectProblem(
      await api(account, 'POST', '/export/events', {
        body: 'format,start_time\njson,2024-03-01T00:00:00Z\n',
        headers: { 'Content-Type': 'text/csv' },
      }),
      415,
    );
  });
});
