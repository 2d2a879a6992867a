import {
  EXPORT_MAX_OFFSET,
  ID_MAX_LENGTH,
  MAX_CONDITION_DEPTH,
  MAX_CONDITIONS,
  PROFILE_UPDATE_MAX_PROPERTIES,
  type JobSummary,
} from '@guidepost/contracts-http';
import { api, createAccount, expectJson, expectProblem, type ApiInit, type TestAccount } from './support';
import { completedJob, createSegment, download, expectAccepted, memberIds, ndjsonObjects, segmentPath } from './support-segments';
import {
  csvBody,
  eventuallyInHistory,
  eventuallyProperties,
  getProfile,
  groupPath,
  historyOfAtLeast,
  importFailures,
  ndjsonBody,
  ndjsonText,
  patchProfile,
  startImport,
  STATUS_OK,
  track,
  uniqueId,
  userPath,
  type Json,
} from './support-people';

/**
 * Every input from outside is either taken and kept, or refused at once with a 400 naming the field,
 * parameter, index or line (an import row fails naming its field): never acknowledged and then dropped
 * by a worker or the event sink, never a 500, never a job left IN_PROGRESS. Covers event timestamps,
 * export offsets and limits, the one time_zone grammar, the one id length, export conditions and
 * membership-export property names, and profile updates.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

const INSTANT = '2024-05-01T09:30:00Z';

/** A request's problem detail may name a place in the body as the platform's JSON check does (`a.0.2`) or as the endpoint does (`a[0][2]`). */
const place = (name: string, ...indices: number[]): string =>
  `${name}(${indices.map((index) => `\\[${index}\\]`).join('')}|${indices.map((index) => `\\.${index}`).join('')})`;

/** The account's jobs, to check that a refused request created none. */
async function jobIds(): Promise<string[]> {
  const jobs = await expectJson<JobSummary[]>(await api(account, 'GET', '/jobs'), 200);
  return jobs.map((job) => job.id).sort();
}

/** Sends the request, requires a 400 whose detail matches, and that no job was created meanwhile. */
async function refusedWithoutJob(method: 'POST' | 'PATCH', path: string, init: ApiInit, detail: RegExp | string): Promise<void> {
  const before = await jobIds();
  await expectProblem(await api(account, method, path, init), 400, detail);
  expect(await jobIds()).toEqual(before);
}

describe('event timestamps the event store cannot hold', () => {
  it.each([
    ['before 1900', '1899-12-31T23:59:59.999Z'],
    ['before 1900 in UTC, though 1900 in its own offset', '1900-01-01T00:30:00+01:00'],
    ['in 2300', '2300-01-01T00:00:00Z'],
    ['in year 0000', '0000-06-01T00:00:00Z'],
  ])('are refused by track %s, naming timestamp', async (_case, timestamp) => {
    const response = await api(account, 'POST', userPath(uniqueId('early'), 'events'), { json: { name: 'too_early', timestamp } });
    await expectProblem(response, 400, /^timestamp: must be in the years 1900 to 2299/);
  });

  it('are taken at both edges of the range, and reach history', async () => {
    const userId = uniqueId('edges');
    await track(account, userId, { name: 'first_instant', timestamp: '1900-01-01T00:00:00Z' });
    await track(account, userId, { name: 'last_instant', timestamp: '2299-12-31T23:59:59.999Z' });
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events.map((event) => [event.name, event.timestamp])).toEqual([
      ['last_instant', '2299-12-31T23:59:59.999Z'],
      ['first_instant', '1900-01-01T00:00:00.000Z'],
    ]);
  });

  it.each([
    [
      'NDJSON',
      (userId: string) =>
        ndjsonBody(
          ndjsonText([
            { user_id: userId, name: 'kept', timestamp: INSTANT },
            { user_id: userId, name: 'too_early', timestamp: '1899-12-31T23:59:59Z' },
            { user_id: userId, name: 'too_late', timestamp: '2300-01-01T00:00:00+00:00' },
          ]),
        ),
    ],
    [
      'CSV',
      (userId: string) =>
        csvBody(
          `user_id,name,timestamp\n${userId},kept,${INSTANT}\n${userId},too_early,1899-12-31T23:59:59Z\n${userId},too_late,2300-01-01T00:00:00+00:00\n`,
        ),
    ],
  ])('fail their import row (%s), naming timestamp, and are counted', async (format, body) => {
    const userId = uniqueId(`import-${format.toLowerCase()}`);
    const ack = await startImport(account, 'events', body(userId));
    const { completed } = await completedJob(account, ack);
    expect(completed.attributes).toMatchObject({ ingestions_completed: 1, ingestions_failed: 2 });
    const failures = await importFailures(account, ack.job_id);
    expect(failures).toEqual([
      { line: 2 + (format === 'CSV' ? 1 : 0), field: 'timestamp', reason: expect.stringMatching(/^must be in the years 1900 to 2299/) },
      { line: 3 + (format === 'CSV' ? 1 : 0), field: 'timestamp', reason: expect.stringMatching(/^must be in the years 1900 to 2299/) },
    ]);
    const [event] = await historyOfAtLeast(account, userId, 1);
    expect(event.name).toBe('kept');
  });

  it('reach the store from profile writes and group association as well (svc:profile_update)', async () => {
    const userId = uniqueId('recorded');
    await patchProfile(account, userId, { plan: 'pro' });
    expect(
      await expectJson(await api(account, 'PATCH', groupPath(uniqueId('group'), 'users'), { json: { user_ids: [userId] } }), 200),
    ).toEqual(STATUS_OK);
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events.every((event) => event.name === 'svc:profile_update')).toBe(true);
  });
});

describe('export offset and limit, and history limit', () => {
  const valid = { format: 'json', conditions: [], start_time: '2024-01-01T00:00:00Z' };
  const rawBody = (fields: string): ApiInit => ({
    body: `{"format":"json","conditions":[],"start_time":"2024-01-01T00:00:00Z",${fields}}`,
    headers: { 'Content-Type': 'application/json' },
  });

  it.each([
    ['an offset that JSON reads as Infinity', '"offset":1e309', /^offset: /],
    ['an offset of 2^63', '"offset":9223372036854775808', /^offset: /],
    [`an offset over ${EXPORT_MAX_OFFSET}`, `"offset":${EXPORT_MAX_OFFSET + 1}`, `offset: must be <= ${EXPORT_MAX_OFFSET}`],
    ['a fractional offset', '"offset":2.5', /^offset: /],
    ['a limit that JSON reads as Infinity', '"limit":1e309', /^limit: /],
  ])('refuses %s before any job is created', async (_case, fields, detail) => {
    await refusedWithoutJob('POST', '/export/events', rawBody(fields), detail);
  });

  it(`runs an export at the largest offset, ${EXPORT_MAX_OFFSET}, to completion`, async () => {
    const ack = await expectAccepted(
      account,
      await api(account, 'POST', '/export/events', { json: { ...valid, offset: EXPORT_MAX_OFFSET } }),
    );
    const { completed } = await completedJob(account, ack);
    expect(completed.attributes['rows']).toBe(0);
  });

  it.each(['0', '10001', '1e309', '9223372036854775808', '-5', '5.0'])('refuses history limit=%s, naming limit', async (limit) => {
    await expectProblem(await api(account, 'GET', `${userPath('anyone', 'events')}?limit=${limit}`), 400, /^limit: /);
  });
});

describe('time_zone: one grammar for history and export', () => {
  const userId = uniqueId('zoned');
  const SEEN_AT = '2024-05-01T15:00:00.000+05:30';

  beforeAll(async () => {
    await track(account, userId, { name: 'zoned', timestamp: INSTANT });
    await historyOfAtLeast(account, userId, 1);
  });

  it.each([
    ['+0530 (an ISO basic offset, not 530 minutes)', '%2B0530'],
    ['+0530 sent with an unencoded +', '+0530'],
    ['0530', '0530'],
    ['+330 (minutes with a sign)', '%2B330'],
    ['+05', '%2B05'],
  ])('history refuses %s, naming time_zone', async (_case, query) => {
    await expectProblem(await api(account, 'GET', `${userPath(userId, 'events')}?time_zone=${query}`), 400, /^time_zone: /);
  });

  it.each([
    ['+05:30', '%2B05:30'],
    ['+05:30 sent with an unencoded +', '+05:30'],
    ['330 minutes', '330'],
  ])('history takes %s', async (_case, query) => {
    const [event] = await expectJson<{ timestamp: string }[]>(
      await api(account, 'GET', `${userPath(userId, 'events')}?time_zone=${query}`),
      200,
    );
    expect(event.timestamp).toBe(SEEN_AT);
  });

  it.each<[string, unknown]>([
    ['+0530', '+0530'],
    ['a fraction of a minute', 1.5],
    ['+330', '+330'],
    ['an offset beyond +14:00', '+14:30'],
  ])('export refuses %s, naming time_zone, before any job is created', async (_case, timeZone) => {
    await refusedWithoutJob(
      'POST',
      '/export/events',
      { json: { format: 'json', conditions: [], start_time: 0, time_zone: timeZone } },
      /^time_zone: /,
    );
  });

  it.each<[string, unknown]>([
    ['+05:30', '+05:30'],
    ['330 as a number', 330],
    ['330 as text, as history takes it', '330'],
  ])('export takes %s, rendering as history does', async (_case, timeZone) => {
    const body = { format: 'json', conditions: [['user_id', '==', userId]], start_time: 0, time_zone: timeZone };
    const { completed } = await completedJob(
      account,
      await expectAccepted(account, await api(account, 'POST', '/export/events', { json: body })),
    );
    const lines = ndjsonObjects(await download(completed.attributes['signed_s3_url'] as string)) as { timestamp: string }[];
    expect(lines.map((line) => line.timestamp)).toEqual([SEEN_AT]);
  });
});

describe(`ids: 1 to ${ID_MAX_LENGTH} characters on every path in and out`, () => {
  /** The longest id, in two-byte characters: 510 bytes of UTF-8, 1,530 characters percent-encoded. */
  const longest = (prefix: string): string => `${prefix}-${'é'.repeat(ID_MAX_LENGTH - prefix.length - 1)}`;
  const tooLong = (prefix: string): string => `${longest(prefix)}x`;
  const TOO_LONG = `must NOT have more than ${ID_MAX_LENGTH} characters`;

  it(`reads, updates and deletes a profile whose ${ID_MAX_LENGTH}-character id came in by import`, async () => {
    const userId = longest('imported');
    const { completed } = await completedJob(
      account,
      await startImport(account, 'profiles', ndjsonBody(ndjsonText([{ user_id: userId, plan: 'pro' }]))),
    );
    expect(completed.attributes).toMatchObject({ ingestions_completed: 1, ingestions_failed: 0 });
    // Merged by the profile service a moment after the import completed, in the distributed shape.
    await eventuallyProperties(account, { user: userId }, { plan: 'pro' });
    await patchProfile(account, userId, { seats: 3 });
    expect(await getProfile(account, userId)).toMatchObject({ plan: 'pro', seats: 3 });
    await completedJob(account, await expectAccepted(account, await api(account, 'DELETE', userPath(userId, 'profile'))));
    await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404);
  });

  it('fails import rows whose id is longer, naming the id field', async () => {
    const ack = await startImport(
      account,
      'profiles',
      ndjsonBody(ndjsonText([{ user_id: tooLong('row') }, { userId: tooLong('alias') }, { user_id: 'fine' }])),
    );
    const { completed } = await completedJob(account, ack);
    expect(completed.attributes).toMatchObject({ ingestions_completed: 1, ingestions_failed: 2 });
    expect(await importFailures(account, ack.job_id)).toEqual([
      { line: 1, field: 'user_id', reason: TOO_LONG },
      { line: 2, field: 'userId', reason: TOO_LONG },
    ]);
    const groups = await startImport(account, 'groups', csvBody(`group_id,industry\n${tooLong('group')},retail\n`));
    await completedJob(account, groups);
    expect(await importFailures(account, groups.job_id)).toEqual([{ line: 2, field: 'group_id', reason: TOO_LONG }]);
    const events = await startImport(
      account,
      'events',
      ndjsonBody(ndjsonText([{ user_id: 'u', group_id: tooLong('g'), name: 'n', timestamp: INSTANT }])),
    );
    await completedJob(account, events);
    expect(await importFailures(account, events.job_id)).toEqual([{ line: 1, field: 'group_id', reason: TOO_LONG }]);
  });

  it.each<[string, 'GET' | 'PATCH' | 'DELETE' | 'POST', string, RegExp]>([
    ['a user profile', 'GET', userPath(tooLong('u'), 'profile'), /^user_id: /],
    ['a user profile update', 'PATCH', userPath(tooLong('u'), 'profile'), /^user_id: /],
    ['a user profile deletion', 'DELETE', userPath(tooLong('u'), 'profile'), /^user_id: /],
    ['event history', 'GET', userPath(tooLong('u'), 'events'), /^user_id: /],
    ['track', 'POST', userPath(tooLong('u'), 'events'), /^user_id: /],
    ['a group profile', 'GET', groupPath(tooLong('g'), 'profile'), /^group_id: /],
    ['a group profile update', 'PATCH', groupPath(tooLong('g'), 'profile'), /^group_id: /],
    ['group association', 'POST', groupPath(tooLong('g'), 'users'), /^group_id: /],
    ['a segment', 'GET', segmentPath(tooLong('s')), /^segment_id: /],
    ['a job', 'GET', `/jobs/${encodeURIComponent(tooLong('j'))}`, /^job_id: /],
    ['import failures', 'GET', `/jobs/${encodeURIComponent(tooLong('j'))}/failures`, /^job_id: /],
  ])('refuses a longer id in the path of %s with 400 naming the parameter', async (_case, method, path, detail) => {
    const init: ApiInit =
      method === 'GET' || method === 'DELETE'
        ? {}
        : { json: path.endsWith('/users') ? { user_ids: ['u'] } : { name: 'n', timestamp: INSTANT } };
    const problem = await expectProblem(await api(account, method, path, init), 400, detail);
    expect(problem.detail).toContain(TOO_LONG);
  });

  it('refuses a longer group_id in a tracked event, naming it', async () => {
    const response = await api(account, 'POST', userPath(uniqueId('member'), 'events'), {
      json: { name: 'n', timestamp: INSTANT, group_id: tooLong('g') },
    });
    await expectProblem(response, 400, `group_id: ${TOO_LONG}`);
  });

  describe('in id lists', () => {
    const tooLongId = tooLong('listed');
    /** An id PostgreSQL's index cannot hold whatever its length check: 3,000 characters that do not compress. */
    const incompressible = Array.from({ length: 3000 }, (_, index) => String.fromCharCode(0x4e00 + ((index * 7919) % 20000))).join('');

    it.each<[string, (fine: string) => ApiInit, RegExp]>([
      ['JSON', (fine) => ({ json: { user_ids: [fine, tooLongId] } }), new RegExp(`^${place('user_ids', 1)}: ${TOO_LONG}`)],
      [
        'JSON, an id no index could hold',
        (fine) => ({ json: { user_ids: [fine, incompressible] } }),
        new RegExp(`^${place('user_ids', 1)}: ${TOO_LONG}`),
      ],
      ['NDJSON', (fine) => ndjsonBody(ndjsonText([fine, tooLongId])), new RegExp(`^line 2: ${TOO_LONG}`)],
      ['CSV', (fine) => csvBody(`user_id\n${fine}\n${tooLongId}\n`), new RegExp(`^line 3: ${TOO_LONG}`)],
    ])('refuse a longer id (%s) with 400 naming it, associating nobody', async (_case, body, detail) => {
      const fine = uniqueId('fine');
      await expectProblem(await api(account, 'PATCH', groupPath(uniqueId('listed-group'), 'users'), body(fine)), 400, detail);
      await expectProblem(await api(account, 'GET', userPath(fine, 'profile')), 404);
    });

    it('refuse a longer id added to or removed from a segment, creating no job', async () => {
      const segment = await createSegment(account);
      await refusedWithoutJob(
        'POST',
        segmentPath(segment.id, 'add_user_ids'),
        { json: { user_ids: ['ok', tooLongId] } },
        new RegExp(`^${place('user_ids', 1)}: `),
      );
      await refusedWithoutJob('POST', segmentPath(segment.id, 'remove_user_ids'), ndjsonBody(ndjsonText([tooLongId])), /^line 1: /);
      expect(await memberIds(account, segment.id)).toEqual([]);
    });

    it(`take ids of ${ID_MAX_LENGTH} characters, whose profiles are then at their path`, async () => {
      const userId = longest('member');
      expect(
        await expectJson(await api(account, 'PATCH', groupPath(longest('team'), 'users'), { json: { user_ids: [userId] } }), 200),
      ).toEqual(STATUS_OK);
      expect(await getProfile(account, userId)).toMatchObject({ group_id: longest('team') });
      const segment = await createSegment(account);
      await completedJob(
        account,
        await expectAccepted(
          account,
          await api(account, 'POST', segmentPath(segment.id, 'add_user_ids'), ndjsonBody(ndjsonText([userId]))),
        ),
      );
      expect(await memberIds(account, segment.id)).toEqual([userId]);
    });
  });
});

describe('export conditions and property names the worker could not run', () => {
  const exportWith = (fields: Json): ApiInit => ({ json: { format: 'json', conditions: [], start_time: 0, ...fields } });
  const leaf = (index: number): unknown[] => ['flow_id', '==', `flow-${index}`];

  it.each<[string, unknown[], RegExp]>([
    ['a value with NUL', [['name', '==', 'sign\u0000up']], new RegExp(`^${place('conditions', 0, 2)}: contains a NUL`)],
    [
      'a field with NUL',
      [
        ['name', '==', 'a'],
        ['flow\u0000id', 'is null'],
      ],
      new RegExp(`^${place('conditions', 1, 0)}: contains a NUL`),
    ],
    [
      'a list item with a lone surrogate',
      [['or', ['user_id', 'in', ['a', '\ud800']]]],
      new RegExp(`^${place('conditions', 0, 1, 2, 1)}: contains a lone UTF-16 surrogate`),
    ],
    [
      'a like pattern ending with a lone backslash',
      [['name', 'like', 'svc:\\']],
      /^conditions\[0\]\[2\]: the pattern ends with a lone backslash/,
    ],
    [
      'a timestamp the store would misread (year 0000)',
      [['timestamp', '==', '0000-01-01T00:00:00Z']],
      /^conditions\[0\]\[2\]: field "timestamp" takes instants in the years 1900 to 2299/,
    ],
    [
      `more than ${MAX_CONDITIONS} conditions`,
      [['or', ...Array.from({ length: MAX_CONDITIONS + 1 }, (_, index) => leaf(index))]],
      new RegExp(`more than ${MAX_CONDITIONS} conditions`),
    ],
  ])('refuses %s with 400 naming the position, creating no job', async (_case, conditions, detail) => {
    await refusedWithoutJob('POST', '/export/events', exportWith({ conditions }), detail);
  });

  it(`refuses conjunctions nested more than ${MAX_CONDITION_DEPTH} deep`, async () => {
    let condition: unknown[] = leaf(0);
    for (let depth = 0; depth <= MAX_CONDITION_DEPTH; depth += 1) condition = ['and', condition];
    await refusedWithoutJob(
      'POST',
      '/export/events',
      exportWith({ conditions: [condition] }),
      new RegExp(`nest more than ${MAX_CONDITION_DEPTH} levels deep`),
    );
  });

  it('answers 10 000 conditions at once with a 400, without stalling', async () => {
    const started = Date.now();
    const conditions = Array.from({ length: 10_000 }, (_, index) => leaf(index));
    await expectProblem(
      await api(account, 'POST', '/export/events', exportWith({ conditions })),
      400,
      new RegExp(`^conditions\\[${MAX_CONDITIONS}\\]: `),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it(`runs what it accepts: ${MAX_CONDITIONS} conditions, long values, a range reaching outside the store's years`, async () => {
    const userId = uniqueId('runnable');
    // The last of the flow conditions below matches it.
    await track(account, userId, { name: 'runnable', timestamp: INSTANT, attributes: { flow_id: `flow-${MAX_CONDITIONS - 2}` } });
    await eventuallyInHistory(account, userId, (event) => event.name === 'runnable');
    const conditions = [
      ['or', ...Array.from({ length: MAX_CONDITIONS - 2 }, (_, index) => leaf(index + 1))],
      ['user_id', 'in', [userId, 'x'.repeat(30_000)]],
    ];
    const body = exportWith({ conditions, start_time: '0001-01-01T00:00:00Z', end_time: '9999-12-31T00:00:00Z' });
    const { completed } = await completedJob(
      account,
      await expectAccepted(account, await api(account, 'POST', '/export/events', body)),
      60_000,
    );
    const lines = ndjsonObjects(await download(completed.attributes['signed_s3_url'] as string));
    expect(lines).toEqual([expect.objectContaining({ user_id: userId, name: 'runnable' })]);
  });

  it.each<[string, unknown[], RegExp]>([
    ['NUL', ['plan', 'email', 'seats', 'a\u0000b'], new RegExp(`^${place('property_names', 3)}: contains a NUL`)],
    ['a lone surrogate', ['\udc00'], new RegExp(`^${place('property_names', 0)}: contains a lone UTF-16 surrogate`)],
  ])('refuses membership-export property names with %s, naming the name, creating no job', async (_case, propertyNames, detail) => {
    const segment = await createSegment(account);
    await refusedWithoutJob(
      'POST',
      segmentPath(segment.id, 'segment_membership_export'),
      { json: { property_names: propertyNames } },
      detail,
    );
  });
});

describe('profile updates', () => {
  const properties = (count: number): Json => Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, index]));

  it.each([
    ['user', (id: string) => userPath(id, 'profile')],
    ['group', (id: string) => groupPath(id, 'profile')],
  ])(`write at most ${PROFILE_UPDATE_MAX_PROPERTIES} properties (%s), as JSON or CSV`, async (kind, pathOf) => {
    const id = uniqueId(`wide-${kind}`);
    expect(await expectJson(await api(account, 'PATCH', pathOf(id), { json: properties(PROFILE_UPDATE_MAX_PROPERTIES) }), 200)).toEqual(
      STATUS_OK,
    );
    const tooMany = new RegExp(`must NOT have more than ${PROFILE_UPDATE_MAX_PROPERTIES} properties`);
    await expectProblem(await api(account, 'PATCH', pathOf(id), { json: properties(PROFILE_UPDATE_MAX_PROPERTIES + 1) }), 400, tooMany);
    const names = Object.keys(properties(PROFILE_UPDATE_MAX_PROPERTIES + 1));
    await expectProblem(
      await api(account, 'PATCH', pathOf(id), csvBody(`${names.join(',')}\n${names.map(() => 'x').join(',')}\n`)),
      400,
      tooMany,
    );
    const stored = await expectJson<Json>(await api(account, 'GET', pathOf(id)), 200);
    expect(stored['p0']).toBe(0);
    expect(stored[`p${PROFILE_UPDATE_MAX_PROPERTIES}`]).toBeUndefined();
  });

  it.each<[string, Json, RegExp]>([
    ['an empty property name', { plan: 'pro', '': 1 }, /^"": a property name must not be empty/],
    ['a property name with NUL', { 'pl\u0000an': 'pro' }, /^pl(\u0000|\\u0000)an: has a name that contains a NUL/],
    [
      'a property name with a lone surrogate',
      { 'plan\ud800': 'pro' },
      /^plan(\ud800|\\ud800): has a name that contains a lone UTF-16 surrogate/,
    ],
    ['a value with a lone surrogate', { plan: ['ok', 'pro\udc00'] }, /^plan(\.1)?: (holds text that )?contains a lone UTF-16 surrogate/],
  ])('refuse %s with 400 naming the property, writing nothing', async (_case, update, detail) => {
    for (const path of [userPath(uniqueId('named'), 'profile'), groupPath(uniqueId('named'), 'profile')]) {
      await expectProblem(await api(account, 'PATCH', path, { json: update }), 400, detail);
      await expectProblem(await api(account, 'GET', path), 404);
    }
  });
});
