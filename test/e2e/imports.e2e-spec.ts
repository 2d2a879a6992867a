import { randomInt } from 'node:crypto';
import {
  api,
  createAccount,
  eventually,
  expectJson,
  expectProblem,
  parseCsv,
  type ApiInit,
  type JobDetail,
  type JobEvent,
  type TestAccount,
} from './support';
import { completedJob, expectAbsoluteUrl, handBuiltMultipart } from './support-segments';
import {
  BODY_LIMIT_DETAIL,
  csvBody,
  eventuallyInHistory,
  eventuallyProperties,
  formUpload,
  getGroupProfile,
  getProfile,
  groupPath,
  history,
  historyOfAtLeast,
  importFailures,
  mixedUpload,
  ndjsonBody,
  ndjsonText,
  oversizedLines,
  patchProfile,
  propertiesOf,
  setFilteringRules,
  startImport,
  track,
  uniqueId,
  userPath,
  type ImportKind,
  type Json,
  type RowFailure,
} from './support-people';

/**
 * Bulk imports of user profiles, group profiles and events: NDJSON, CSV or an uploaded file of either,
 * acknowledged with a job that reports counts and keeps every bad row (line, field, reason) while the
 * good rows are imported.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

const JOB_NAMES: Record<ImportKind, string> = { profiles: 'Import Profiles', groups: 'Import Groups', events: 'Import Events' };

/** An id that reads like a number (`0` and digits): CSV id columns must keep it as text. */
function numericLookingId(): string {
  return `0${randomInt(10_000_000, 99_999_999)}`;
}

interface ImportOutcome {
  readonly job: JobDetail;
  readonly completed: JobEvent;
}

/**
 * Imports, waits for COMPLETED and checks what every finished import reports: its name, `Ingesting`
 * before `Completed`, the counters, and where the failures are.
 */
async function importRows(kind: ImportKind, init: ApiInit, counts: { completed: number; failed?: number }): Promise<ImportOutcome> {
  const ack = await startImport(account, kind, init);
  const { job, completed } = await completedJob(account, ack);
  expect(job.name).toBe(JOB_NAMES[kind]);
  const names = job.events.map((event) => event.name);
  expect(names).toContain('Ingesting');
  expect(names.indexOf('Ingesting')).toBeLessThan(names.indexOf('Completed'));
  expect(completed.attributes).toMatchObject({
    ingestions_completed: counts.completed,
    ingestions_failed: counts.failed ?? 0,
    requests_failed: 0,
    runtime_ms: expect.any(Number),
  });
  expect(completed.attributes['runtime_ms']).toBeGreaterThanOrEqual(0);
  expectAbsoluteUrl(
    completed.attributes['failures_url'],
    `/v2/accounts/${encodeURIComponent(account.id)}/jobs/${encodeURIComponent(job.id)}/failures`,
  );
  return { job, completed };
}

/** Waits for a profile the import wrote to read as `expected` (see `eventuallyProperties`). */
async function expectUserProperties(userId: string, expected: Json): Promise<void> {
  await eventuallyProperties(account, { user: userId }, expected);
}

async function expectGroupProperties(groupId: string, expected: Json): Promise<void> {
  await eventuallyProperties(account, { group: groupId }, expected);
}

type Encoding = [label: string, encode: (content: { ndjson: string; csv: string }) => ApiInit];

/** Every way an import can arrive, each fed the same rows. */
const ENCODINGS: Encoding[] = [
  ['NDJSON', ({ ndjson }) => ndjsonBody(ndjson)],
  ['NDJSON as application/x-ndjson', ({ ndjson }) => ({ body: ndjson, headers: { 'Content-Type': 'application/x-ndjson' } })],
  ['CSV', ({ csv }) => csvBody(csv)],
  ['a multipart/form-data NDJSON file', ({ ndjson }) => formUpload(ndjson, 'rows.ndjson', 'application/x-ndjson')],
  ['a multipart/form-data CSV file', ({ csv }) => formUpload(csv, 'rows.csv', 'text/csv')],
  ['a multipart/mixed NDJSON file', ({ ndjson }) => mixedUpload(ndjson, 'rows.ndjson', 'application/x-ndjson')],
  ['a multipart/mixed CSV file', ({ csv }) => mixedUpload(csv, 'rows.csv', 'text/csv')],
];

describe('POST /import/profiles', () => {
  it.each(ENCODINGS)('imports profiles sent as %s, with user_id or userId', async (label, encode) => {
    const [first, second] = [numericLookingId(), numericLookingId()];
    const ndjson = ndjsonText([
      { user_id: first, plan: 'pro', seats: 12, beta: true, code: '007' },
      { userId: second, plan: 'free', seats: 0, beta: false, code: 'x1' },
    ]);
    const idColumn = label.includes('mixed') ? 'userId' : 'user_id';
    const csv = `${idColumn},plan,seats,beta,code\n${first},pro,12,true,007\n${second},free,0,false,x1\n`;

    await importRows('profiles', encode({ ndjson, csv }), { completed: 2 });
    await expectUserProperties(first, { plan: 'pro', seats: 12, beta: true, code: '007' });
    // The identifying key is not a property, whichever spelling was used.
    await expectUserProperties(second, { plan: 'free', seats: 0, beta: false, code: 'x1' });
  });

  it('keeps every JSON type of an NDJSON row and merges into an existing profile', async () => {
    const userId = uniqueId('merge');
    await patchProfile(account, userId, { kept: 'from PATCH', plan: 'old' });
    const row = { user_id: userId, plan: 'new', manager: null, address: { city: 'Lyon' }, tags: ['a', 2] };
    await importRows('profiles', ndjsonBody(ndjsonText([row])), { completed: 1 });
    await expectUserProperties(userId, { kept: 'from PATCH', plan: 'new', manager: null, address: { city: 'Lyon' }, tags: ['a', 2] });
  });

  it('types CSV cells: numbers, booleans, text such as 007; an empty cell leaves the property as it was', async () => {
    const userId = uniqueId('typed');
    await patchProfile(account, userId, { blank: 'kept' });
    const csv = `user_id,plan,seats,score,big,beta,trial,code,note,blank\n${userId},pro,12,-3.5,1e3,true,false,007,"a, ""quoted"" note",\n`;
    await importRows('profiles', csvBody(csv), { completed: 1 });
    await expectUserProperties(userId, {
      blank: 'kept',
      plan: 'pro',
      seats: 12,
      score: -3.5,
      big: 1000,
      beta: true,
      trial: false,
      code: '007',
      note: 'a, "quoted" note',
    });
  });

  it('ignores blank lines and indentation', async () => {
    const userId = uniqueId('spaced');
    const ndjson = `\n   ${JSON.stringify({ user_id: userId, plan: 'pro' })}   \n\n\t\n`;
    await importRows('profiles', ndjsonBody(ndjson), { completed: 1 });
    await expectUserProperties(userId, { plan: 'pro' });
  });

  it("records each imported row as svc:profile_update in the user's history", async () => {
    const userId = uniqueId('recorded');
    await importRows('profiles', ndjsonBody(ndjsonText([{ user_id: userId, plan: 'pro' }])), { completed: 1 });
    const event = await eventuallyInHistory(account, userId, (candidate) => candidate.name === 'svc:profile_update');
    expect(event.attributes).toEqual({ plan: 'pro' });
  });
});

describe('POST /import/groups', () => {
  it.each(ENCODINGS)('imports group profiles sent as %s, with group_id or groupId', async (label, encode) => {
    const [first, second] = [numericLookingId(), numericLookingId()];
    const ndjson = ndjsonText([
      { group_id: first, industry: 'retail', size: 50, active: true },
      { groupId: second, industry: 'saas', size: 7, active: false },
    ]);
    const idColumn = label.includes('mixed') ? 'groupId' : 'group_id';
    const csv = `${idColumn},industry,size,active\n${first},retail,50,true\n${second},saas,7,false\n`;

    await importRows('groups', encode({ ndjson, csv }), { completed: 2 });
    await expectGroupProperties(first, { industry: 'retail', size: 50, active: true });
    await expectGroupProperties(second, { industry: 'saas', size: 7, active: false });
  });

  it('merges into an existing group profile', async () => {
    const groupId = uniqueId('group');
    const patched = await api(account, 'PATCH', groupPath(groupId, 'profile'), { json: { kept: 1, industry: 'old' } });
    expect(patched.status).toBe(200);
    await importRows('groups', ndjsonBody(ndjsonText([{ group_id: groupId, industry: 'new' }])), { completed: 1 });
    await expectGroupProperties(groupId, { kept: 1, industry: 'new' });
  });
});

describe('POST /import/events', () => {
  it.each(ENCODINGS)('imports events sent as %s; other fields become attributes', async (label, encode) => {
    const userId = numericLookingId();
    const ndjson = ndjsonText([
      {
        user_id: userId,
        name: 'signup',
        timestamp: '2024-05-01T10:00:00Z',
        attributes: { plan: 'pro', seats: 3 },
        source: 'ads',
        context: { url: 'https://app.example.com/signup' },
      },
      { userId, name: 'login', timestamp: '2024-05-02T10:00:00-04:00', source: 'direct' },
    ]);
    const idColumn = label.includes('mixed') ? 'userId' : 'user_id';
    const csv =
      `${idColumn},name,timestamp,attributes.plan,attributes.seats,source,context.url\n` +
      `${userId},signup,2024-05-01T10:00:00Z,pro,3,ads,https://app.example.com/signup\n` +
      `${userId},login,2024-05-02T10:00:00-04:00,,,direct,\n`;

    await importRows('events', encode({ ndjson, csv }), { completed: 2 });
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events).toEqual([
      { user_id: userId, name: 'login', timestamp: '2024-05-02T14:00:00.000Z', attributes: { source: 'direct' } },
      { user_id: userId, name: 'signup', timestamp: '2024-05-01T10:00:00.000Z', attributes: { plan: 'pro', seats: 3, source: 'ads' } },
    ]);
  });

  it.each([
    [
      'NDJSON',
      (userId: string, groupId: string) =>
        ndjsonBody(
          ndjsonText([
            { user_id: userId, group_id: groupId, name: 'in_group', timestamp: '2024-05-01T10:00:00Z' },
            { user_id: userId, name: 'no_group', timestamp: '2024-05-02T10:00:00Z' },
            { group_id: groupId, name: 'group_only', timestamp: '2024-05-03T10:00:00Z' },
          ]),
        ),
    ],
    [
      'CSV with empty id cells',
      (userId: string, groupId: string) =>
        csvBody(
          'user_id,group_id,name,timestamp\n' +
            `${userId},${groupId},in_group,2024-05-01T10:00:00Z\n` +
            `${userId},,no_group,2024-05-02T10:00:00Z\n` +
            `,${groupId},group_only,2024-05-03T10:00:00Z\n`,
        ),
    ],
  ])('takes group_id beside or instead of a user id (%s); group_id is not an attribute', async (_label, body) => {
    const [userId, groupId] = [uniqueId('grouped'), uniqueId('group')];
    await importRows('events', body(userId, groupId), { completed: 3 });
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events.map((event) => [event.name, event.attributes ?? {}])).toEqual([
      ['no_group', {}],
      ['in_group', {}],
    ]);
  });

  it('keeps CSV event names and ids as text and types attribute cells', async () => {
    const userId = numericLookingId();
    const csv =
      'user_id,name,timestamp,attributes.count,attributes.flag,attributes.code,attributes.blank\n' +
      `${userId},true,2024-05-01T10:00:00Z,42,false,007,\n` +
      `${userId},2024,2024-05-02T10:00:00Z,,,,\n`;
    await importRows('events', csvBody(csv), { completed: 2 });
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events[0]).toMatchObject({ user_id: userId, name: '2024', timestamp: '2024-05-02T10:00:00.000Z' });
    // Every cell of that row is empty: the event has no attributes.
    expect(events[0].attributes ?? {}).toEqual({});
    expect(events[1]).toEqual({
      user_id: userId,
      name: 'true',
      timestamp: '2024-05-01T10:00:00.000Z',
      attributes: { count: 42, flag: false, code: '007' },
    });
  });
});

describe('rows that fail', () => {
  /** A failure at `line`; `field` names the field at fault, or is null when the row as a whole is. */
  function expectFailure(failure: RowFailure | undefined, line: number, field?: RegExp): void {
    expect(failure).toEqual({ line, field: failure?.field === null ? null : expect.any(String), reason: expect.any(String) });
    expect(failure?.reason.length).toBeGreaterThan(0);
    if (field !== undefined) expect(failure?.field).toMatch(field);
  }

  it('keeps each bad NDJSON profile row with line, field and reason; imports the good rows', async () => {
    const [good, alsoGood] = [uniqueId('good'), uniqueId('good')];
    const lines = [
      JSON.stringify({ user_id: good, plan: 'pro' }),
      '{"user_id": "broken", "plan": ',
      JSON.stringify({ plan: 'orphan' }),
      JSON.stringify({ user_id: 7, plan: 'number id' }),
      '',
      JSON.stringify({ user_id: '', plan: 'empty id' }),
      '["not", "an", "object"]',
      JSON.stringify({ userId: alsoGood, plan: 'team' }),
    ];
    const { job, completed } = await importRows('profiles', ndjsonBody(`${lines.join('\n')}\n`), { completed: 2, failed: 5 });

    const failures = await importFailures(account, job.id);
    expect(failures.map((failure) => failure.line)).toEqual([2, 3, 4, 6, 7]);
    expectFailure(failures[0], 2);
    expect(failures[0].reason).toMatch(/json/i);
    expectFailure(failures[1], 3, /user_?id/i);
    expectFailure(failures[2], 4, /user_?id/i);
    expectFailure(failures[3], 6, /user_?id/i);
    expectFailure(failures[4], 7);
    // The Completed event carries the first failures inline.
    expect(completed.attributes['failures']).toEqual(failures);

    await expectUserProperties(good, { plan: 'pro' });
    await expectUserProperties(alsoGood, { plan: 'team' });
    await expectProblem(await api(account, 'GET', userPath('broken', 'profile')), 404);
  });

  it('lists the failures as CSV under Accept: text/csv', async () => {
    const ndjson = `${JSON.stringify({ plan: 'orphan' })}\n${JSON.stringify({ user_id: uniqueId('fine') })}\n`;
    const { job } = await importRows('profiles', ndjsonBody(ndjson), { completed: 1, failed: 1 });
    const response = await api(account, 'GET', `/jobs/${job.id}/failures`, { headers: { Accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const csv = parseCsv(await response.text());
    expect([...csv.header].sort()).toEqual(['field', 'line', 'reason']);
    expect(csv.rows).toEqual([{ line: '1', field: expect.stringMatching(/user_?id/i), reason: expect.any(String) }]);
  });

  it('lists no failures for a clean import, and 404 for an unknown job', async () => {
    const { job } = await importRows('profiles', ndjsonBody(ndjsonText([{ user_id: uniqueId('clean') }])), { completed: 1 });
    expect(await importFailures(account, job.id)).toEqual([]);
    await expectProblem(await api(account, 'GET', '/jobs/no-such-job/failures'), 404, 'no-such-job');
  });

  it('keeps each bad NDJSON event row, naming the field; the good events reach history', async () => {
    const userId = uniqueId('events');
    const timestamp = '2024-05-01T10:00:00Z';
    const rows = [
      { user_id: userId, name: 'ok_first', timestamp },
      { user_id: userId, timestamp },
      { user_id: userId, name: 'no_time' },
      { user_id: userId, name: 'no_zone', timestamp: '2024-05-01T10:00:00' },
      { user_id: userId, name: 5, timestamp },
      { user_id: userId, name: 'bad_attributes', timestamp, attributes: 'plan=pro' },
      { name: 'nobody', timestamp },
      { user_id: userId, name: 'bad_url', timestamp, context: { url: 3 } },
      { user_id: userId, name: 'bad_date', timestamp: 'not a date' },
      { userId, name: 'ok_last', timestamp: '2024-05-02T10:00:00Z' },
    ];
    const { job } = await importRows('events', ndjsonBody(ndjsonText(rows)), { completed: 2, failed: 8 });

    const failures = await importFailures(account, job.id);
    expect(failures.map((failure) => failure.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expectFailure(failures[0], 2, /name/);
    expectFailure(failures[1], 3, /timestamp/);
    expectFailure(failures[2], 4, /timestamp/);
    expectFailure(failures[3], 5, /name/);
    expectFailure(failures[4], 6, /attributes/);
    expectFailure(failures[5], 7, /user_?id|group_?id/i);
    expectFailure(failures[6], 8, /url/);
    expectFailure(failures[7], 9, /timestamp/);

    await historyOfAtLeast(account, userId, 2);
    expect((await history(account, userId)).map((event) => event.name)).toEqual(['ok_last', 'ok_first']);
  });

  it('keeps each bad CSV profile row (missing id, wrong cell count, broken quote); imports the good rows', async () => {
    const [first, second] = [uniqueId('csv-good'), uniqueId('csv-good')];
    const csv = [
      'user_id,plan,seats',
      `${first},pro,1`,
      ',orphan,2',
      `${uniqueId('too-many')},free,3,extra`,
      `${second},team,4`,
      `${uniqueId('quote')},"unterminated,5`,
      '',
    ].join('\n');
    const { job } = await importRows('profiles', csvBody(csv), { completed: 2, failed: 3 });

    const failures = await importFailures(account, job.id);
    expect(failures.map((failure) => failure.line)).toEqual([3, 4, 6]);
    expectFailure(failures[0], 3, /user_?id/i);
    expectFailure(failures[1], 4);
    expectFailure(failures[2], 6);
    expect(failures[2].reason).toMatch(/quote/i);
    await expectUserProperties(first, { plan: 'pro', seats: 1 });
    await expectUserProperties(second, { plan: 'team', seats: 4 });
  });

  it('keeps each bad CSV event row (empty name, timestamp without zone, missing id)', async () => {
    const userId = uniqueId('csv-events');
    const csv = [
      'user_id,name,timestamp,attributes.plan',
      `${userId},ok_csv,2024-05-01T10:00:00Z,pro`,
      `${userId},,2024-05-01T10:00:00Z,pro`,
      `${userId},no_zone,2024-05-01 10:00:00,pro`,
      ',nobody,2024-05-01T10:00:00Z,pro',
      '',
    ].join('\n');
    const { job } = await importRows('events', csvBody(csv), { completed: 1, failed: 3 });

    const failures = await importFailures(account, job.id);
    expect(failures.map((failure) => failure.line)).toEqual([3, 4, 5]);
    expectFailure(failures[0], 3, /name/);
    expectFailure(failures[1], 4, /timestamp/);
    expectFailure(failures[2], 5, /user_?id|group_?id/i);
    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event).toEqual({ user_id: userId, name: 'ok_csv', timestamp: '2024-05-01T10:00:00.000Z', attributes: { plan: 'pro' } });
  });
});

describe('refused import requests', () => {
  it.each([
    ['an empty NDJSON body', ndjsonBody('')],
    ['an empty CSV body', csvBody('')],
    ['a body of blank lines', ndjsonBody('\n  \n\n')],
  ])('answers 400 for %s', async (_label, init) => {
    await expectProblem(await api(account, 'POST', '/import/profiles', init), 400);
  });

  it('answers 400 naming file for a multipart upload without a file part', async () => {
    const form = new FormData();
    form.append('upload', new Blob(['user_id\nx\n'], { type: 'text/csv' }), 'rows.csv');
    await expectProblem(await api(account, 'POST', '/import/profiles', { body: form }), 400, /file/);
    const mixed = handBuiltMultipart('mixed', {
      field: 'attachment',
      fileName: 'rows.csv',
      contentType: 'text/csv',
      content: 'user_id\nx\n',
    });
    await expectProblem(await api(account, 'POST', '/import/events', mixed), 400, /file/);
  });

  it.each(['profiles', 'groups', 'events'] as const)('answers 413 naming the limit for a %s body over 20 MB', async (kind) => {
    const row = { user_id: 'big', group_id: 'big', name: 'padding', timestamp: '2024-05-01T10:00:00Z', padding: 'x'.repeat(200) };
    const response = await api(account, 'POST', `/import/${kind}`, ndjsonBody(oversizedLines(JSON.stringify(row))));
    await expectProblem(response, 413, BODY_LIMIT_DETAIL);
  });

  it.each([
    ['application/json', '{"user_id": "json"}'],
    ['text/plain', 'user_id\njson\n'],
  ])('answers 415 for Content-Type %s', async (contentType, body) => {
    for (const kind of ['profiles', 'groups', 'events']) {
      await expectProblem(await api(account, 'POST', `/import/${kind}`, { body, headers: { 'Content-Type': contentType } }), 415);
    }
  });
});

describe('ingestion filtering rules at import', () => {
  let filtered: TestAccount;

  beforeAll(async () => {
    filtered = await createAccount();
    await setFilteringRules(filtered, {
      mode: 'deny',
      event_names: ['noisy_event'],
      user_properties: ['secret'],
      group_properties: ['internal'],
    });
    // Both services learn the rules from a bus message: wait until a tracked event and a PATCH show them.
    await eventually(
      async () => {
        const probe = uniqueId('probe');
        await patchProfile(filtered, probe, { secret: 'x', plan: 'pro' });
        expect(propertiesOf(await getProfile(filtered, probe), 'user_id', probe)).toEqual({ plan: 'pro' });
        const groupProbe = uniqueId('probe');
        expect((await api(filtered, 'PATCH', groupPath(groupProbe, 'profile'), { json: { internal: 1, kept: 2 } })).status).toBe(200);
        expect(propertiesOf(await getGroupProfile(filtered, groupProbe), 'group_id', groupProbe)).toEqual({ kept: 2 });
        await track(filtered, probe, { name: 'noisy_event', timestamp: '2024-05-01T10:00:00Z' });
        await track(filtered, probe, { name: 'marker', timestamp: '2024-05-02T10:00:00Z' });
        await eventuallyInHistory(filtered, probe, (event) => event.name === 'marker');
        expect((await history(filtered, probe)).map((event) => event.name)).not.toContain('noisy_event');
      },
      30_000,
      300,
    );
  });

  async function importInto(kind: ImportKind, rows: Json[]): Promise<void> {
    const ack = await startImport(filtered, kind, ndjsonBody(ndjsonText(rows)));
    await completedJob(filtered, ack);
  }

  it('drops denied user and group properties of imported rows', async () => {
    const [userId, groupId] = [uniqueId('user'), uniqueId('group')];
    await importInto('profiles', [{ user_id: userId, secret: 's', plan: 'pro' }]);
    await importInto('groups', [{ group_id: groupId, internal: 'i', industry: 'retail' }]);
    await eventuallyProperties(filtered, { user: userId }, { plan: 'pro' });
    await eventuallyProperties(filtered, { group: groupId }, { industry: 'retail' });
  });

  it('never stores imported events whose name is denied', async () => {
    const userId = uniqueId('user');
    await importInto('events', [
      { user_id: userId, name: 'noisy_event', timestamp: '2024-05-01T10:00:00Z' },
      { user_id: userId, name: 'kept_event', timestamp: '2024-05-02T10:00:00Z' },
    ]);
    await eventuallyInHistory(filtered, userId, (event) => event.name === 'kept_event');
    // Profile-update events of other tests never belong to this user, so history holds exactly the kept event.
    expect((await history(filtered, userId)).map((event) => event.name)).toEqual(['kept_event']);
  });
});

describe('a finished import, read back', () => {
  it('is listed among the jobs with its name', async () => {
    const { job } = await importRows('groups', ndjsonBody(ndjsonText([{ group_id: uniqueId('listed') }])), { completed: 1 });
    const jobs = await expectJson<{ id: string; name: string; status: string }[]>(await api(account, 'GET', '/jobs'), 200);
    expect(jobs.find((listed) => listed.id === job.id)).toMatchObject({ name: 'Import Groups', status: 'COMPLETED' });
  });
});
