import { admin, api, createAccount, expectJson, expectProblem, expectSelfUrl, parseCsv, server, upsert, type TestAccount } from './support';

/**
 * Flows, pins, mobile experiences, tags and ingestion filtering rules as a client reads and publishes
 * them, with the records written through the admin API (the web studio's stand-in).
 */

const FLOW_FIELDS = [
  'id',
  'name',
  'published',
  'frequency',
  'tag_ids',
  'tags',
  'created_at',
  'updated_at',
  'published_at',
  'created_by',
  'updated_by',
  'url',
];
const EXPERIENCE_FIELDS = [
  'id',
  'account_id',
  'app_id',
  'name',
  'published',
  'published_at',
  'state',
  'frequency',
  'platform',
  'type',
  'preview_url',
  'locked_for_localization',
  'theme',
  'tag_ids',
  'tags',
  'traits',
  'steps',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'url',
];
const STEP_FIELDS = [
  'id',
  'index',
  'name',
  'type',
  'parentId',
  'children',
  'actions',
  'content',
  'contentType',
  'rows',
  'traits',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
];
const TAG_FIELDS = ['id', 'name', 'url', 'created_at', 'updated_at', 'created_by', 'updated_by'];

const FLOW_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

type Json = Record<string, unknown>;
type PublishableKind = 'flows' | 'pins' | 'mobile';

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
  await upsert(account, 'tags', [
    { id: 'onboarding', name: 'Onboarding' },
    { id: 'beta', name: 'Beta' },
  ]);
  await upsert(account, 'flows', [
    { id: 'welcome', name: 'Welcome tour', frequency: 'every_time', tag_ids: ['onboarding', 'beta'], created_by: 'author-1' },
    { id: 'untagged', name: 'Untagged' },
  ]);
  await upsert(account, 'pins', [
    {
      id: 'pin-1',
      name: 'Help pin',
      tag_ids: ['beta'],
      steps: [{ id: 'step-1', name: 'Hello', content: { html: '<p>Hi</p>' }, contentType: 'text/html' }, { id: 'step-2' }],
    },
  ]);
  await upsert(account, 'mobile', [{ id: 'mobile-1', name: 'Mobile carousel' }]);
});

async function getJson<T = Json>(path: string): Promise<T> {
  return expectJson<T>(await api(account, 'GET', path), 200);
}

function sorted(keys: string[]): string[] {
  return [...keys].sort();
}

describe('flows', () => {
  it('lists flows with exactly the documented fields', async () => {
    const flows = await getJson<Json[]>('/flows');
    expect(flows.map((flow) => flow['id']).sort()).toEqual(['untagged', 'welcome']);
    for (const flow of flows) expect(sorted(Object.keys(flow))).toEqual(sorted(FLOW_FIELDS));
  });

  it('returns a flow with its tag map, timestamps without milliseconds and a URL of its own', async () => {
    const flow = await getJson('/flows/welcome');
    expect(flow).toMatchObject({
      id: 'welcome',
      name: 'Welcome tour',
      published: false,
      frequency: 'every_time',
      tag_ids: ['onboarding', 'beta'],
      tags: { onboarding: true, beta: true },
      published_at: null,
      created_by: 'author-1',
    });
    expect(flow['created_at']).toMatch(FLOW_TIMESTAMP);
    expect(flow['updated_at']).toMatch(FLOW_TIMESTAMP);
    expect(typeof flow['updated_by']).toBe('string');
    await expectSelfUrl(account, flow, '/flows/welcome');
    expect((await getJson<Json[]>('/flows')).find((listed) => listed['id'] === 'welcome')).toEqual(flow);
  });

  it('gives an untagged flow empty tag_ids and an empty tags map', async () => {
    expect(await getJson('/flows/untagged')).toMatchObject({ tag_ids: [], tags: {} });
  });

  it('renders the list as CSV with arrays and objects as JSON text and null as an empty cell', async () => {
    const response = await api(account, 'GET', '/flows', { headers: { Accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const { header, rows } = parseCsv(await response.text());
    expect(sorted(header)).toEqual(sorted(FLOW_FIELDS));
    const welcome = rows.find((row) => row['id'] === 'welcome')!;
    expect(JSON.parse(welcome['tag_ids'])).toEqual(['onboarding', 'beta']);
    expect(JSON.parse(welcome['tags'])).toEqual({ onboarding: true, beta: true });
    expect(welcome['published']).toBe('false');
    expect(welcome['published_at']).toBe('');
    expect(welcome['created_at']).toMatch(FLOW_TIMESTAMP);
  });
});

describe('pins and mobile experiences', () => {
  it.each([
    ['pins', 'pin-1'],
    ['mobile', 'mobile-1'],
  ])('%s have exactly the documented fields with integer timestamps', async (kind, id) => {
    const records = await getJson<Json[]>(`/${kind}`);
    expect(records.map((record) => record['id'])).toEqual([id]);
    const record = records[0];
    expect(sorted(Object.keys(record))).toEqual(sorted(EXPERIENCE_FIELDS));
    expect(record).toMatchObject({ account_id: account.id, published: false, published_at: null });
    expect(Number.isInteger(record['created_at'])).toBe(true);
    expect(Number.isInteger(record['updated_at'])).toBe(true);
    for (const field of ['app_id', 'state', 'frequency', 'platform', 'type', 'created_by', 'updated_by']) {
      expect(typeof record[field]).toBe('string');
    }
    expect(typeof record['locked_for_localization']).toBe('boolean');
    expect(Array.isArray(record['traits'])).toBe(true);
    expect(await getJson(`/${kind}/${id}`)).toEqual(record);
    await expectSelfUrl(account, record, `/${kind}/${id}`);
  });

  it('returns steps with exactly the documented fields, in order, with integer timestamps', async () => {
    const pin = await getJson('/pins/pin-1');
    expect(pin).toMatchObject({ tag_ids: ['beta'], tags: { beta: true } });
    const steps = pin['steps'] as Json[];
    expect(steps.map((step) => step['id'])).toEqual(['step-1', 'step-2']);
    for (const step of steps) {
      expect(sorted(Object.keys(step))).toEqual(sorted(STEP_FIELDS));
      expect(Number.isInteger(step['index'])).toBe(true);
      expect(Number.isInteger(step['createdAt'])).toBe(true);
      expect(Number.isInteger(step['updatedAt'])).toBe(true);
    }
    expect(steps[0]).toMatchObject({ name: 'Hello', content: { html: '<p>Hi</p>' }, contentType: 'text/html' });
    expect(steps[1]).toMatchObject({ name: null, parentId: null });
  });
});

describe('tags', () => {
  it('lists and returns tags with exactly the documented fields and ISO timestamps in UTC', async () => {
    const tags = await getJson<Json[]>('/tags');
    expect(tags.map((tag) => tag['id']).sort()).toEqual(['beta', 'onboarding']);
    for (const tag of tags) {
      expect(sorted(Object.keys(tag))).toEqual(sorted(TAG_FIELDS));
      expect(tag['created_at']).toMatch(ISO_UTC);
      expect(tag['updated_at']).toMatch(ISO_UTC);
    }
    const onboarding = await getJson('/tags/onboarding');
    expect(onboarding).toMatchObject({ id: 'onboarding', name: 'Onboarding' });
    await expectSelfUrl(account, onboarding, '/tags/onboarding');
  });
});

describe('publish and unpublish', () => {
  const cases: [PublishableKind, (value: unknown) => void][] = [
    ['flows', (value) => expect(value).toMatch(FLOW_TIMESTAMP)],
    ['pins', (value) => expect(Number.isInteger(value)).toBe(true)],
    ['mobile', (value) => expect(Number.isInteger(value)).toBe(true)],
  ];

  it.each(cases)('%s follow the state table; repeats are harmless and published_at is kept', async (kind, expectTime) => {
    const owner = await createAccount();
    await upsert(owner, kind, [{ id: 'subject', name: 'Publish me' }]);
    const read = async () => expectJson<Json>(await api(owner, 'GET', `/${kind}/subject`), 200);
    const command = async (name: 'publish' | 'unpublish') =>
      expect(await expectJson(await api(owner, 'POST', `/${kind}/subject/${name}`), 200)).toEqual({ status: 200, title: 'OK' });

    expect(await read()).toMatchObject({ published: false, published_at: null });

    await command('publish');
    const published = await read();
    expect(published['published']).toBe(true);
    expectTime(published['published_at']);

    await command('publish');
    expect(await read()).toEqual(published);

    await command('unpublish');
    const unpublished = await read();
    expect(unpublished).toMatchObject({ published: false, published_at: published['published_at'] });

    await command('unpublish');
    expect(await read()).toEqual(unpublished);

    await command('publish');
    expect((await read())['published']).toBe(true);
  });
});

describe('unknown ids', () => {
  const kinds: PublishableKind[] = ['flows', 'pins', 'mobile'];

  it.each(kinds)('%s: get, publish and unpublish answer 404 naming the id', async (kind) => {
    await expectProblem(await api(account, 'GET', `/${kind}/no-such-id`), 404, /no-such-id/);
    await expectProblem(await api(account, 'POST', `/${kind}/no-such-id/publish`), 404, /no-such-id/);
    await expectProblem(await api(account, 'POST', `/${kind}/no-such-id/unpublish`), 404, /no-such-id/);
  });

  it('tags: get answers 404 naming the id', async () => {
    await expectProblem(await api(account, 'GET', '/tags/no-such-id'), 404, /no-such-id/);
  });

  it("another account's records are not found", async () => {
    const stranger = await createAccount();
    expect(await expectJson(await api(stranger, 'GET', '/flows'), 200)).toEqual([]);
    await expectProblem(await api(stranger, 'GET', '/flows/welcome'), 404, /welcome/);
    await expectProblem(await api(stranger, 'POST', '/pins/pin-1/publish'), 404, /pin-1/);
    await expectProblem(await api(stranger, 'GET', '/tags/onboarding'), 404, /onboarding/);
  });
});

describe('ingestion filtering rules', () => {
  it('keeps everything by default: deny mode with empty lists', async () => {
    const fresh = await createAccount();
    const rules = await expectJson<Json>(await api(fresh, 'GET', '/ingestion_filtering_rules'), 200);
    expect(rules).toMatchObject({ mode: 'deny', event_names: [], user_properties: [], group_properties: [] });
  });

  it('returns the rules an administrator set', async () => {
    const rules = { mode: 'allow', event_names: ['signup', 'svc:page_view'], user_properties: ['plan'] };
    const put = await admin('PUT', `/admin/v1/accounts/${account.id}/ingestion_filtering_rules`, rules);
    expect(put.status).toBe(200);
    expect(await getJson('/ingestion_filtering_rules')).toMatchObject({ ...rules, group_properties: [] });
  });

  it('refuses rules with an unknown mode, naming the field', async () => {
    const put = await admin('PUT', `/admin/v1/accounts/${account.id}/ingestion_filtering_rules`, { mode: 'sometimes' });
    await expectProblem(put, 400, /mode/);
  });
});

describe('admin content upserts', () => {
  it('refuses a record without id, naming its index and the field', async () => {
    const response = await admin('PUT', `/admin/v1/accounts/${account.id}/flows`, [{ id: 'fine', name: 'Fine' }, { name: 'No id' }]);
    const problem = await expectProblem(response, 400);
    expect(problem.detail).toMatch(/\b1\b/);
    expect(problem.detail).toMatch(/\bid\b/);
  });

  it('refuses a tag without name, naming its index and the field', async () => {
    const response = await admin('PUT', `/admin/v1/accounts/${account.id}/tags`, [{ id: 'nameless' }]);
    const problem = await expectProblem(response, 400);
    expect(problem.detail).toMatch(/\b0\b/);
    expect(problem.detail).toMatch(/\bname\b/);
  });

  it('refuses a body that holds no records', async () => {
    await expectProblem(await admin('PUT', `/admin/v1/accounts/${account.id}/pins`, 'not records'), 400);
    await expectProblem(await admin('PUT', `/admin/v1/accounts/${account.id}/mobile`, [42]), 400, /\b0\b/);
  });

  it('answers 401 without the admin token or with a wrong one', async () => {
    const path = `${server().adminUrl}/admin/v1/accounts/${account.id}/flows`;
    const body = JSON.stringify([{ id: 'sneaky', name: 'Sneaky' }]);
    const headers = { 'Content-Type': 'application/json' };
    await expectProblem(await fetch(path, { method: 'PUT', headers, body }), 401);
    await expectProblem(await fetch(path, { method: 'PUT', headers: { ...headers, Authorization: 'Bearer wrong-token' }, body }), 401);
    await expectProblem(await api(account, 'GET', '/flows/sneaky'), 404);
  });

  it('replaces a record on a second upsert, keeping its creation, and reports how many were written', async () => {
    const owner = await createAccount();
    const read = async () => expectJson<Json>(await api(owner, 'GET', '/tags/temporary'), 200);
    expect(await upsert(owner, 'tags', [{ id: 'temporary', name: 'Before' }])).toEqual({ upserted: 1 });
    const before = await read();
    expect(
      await upsert(owner, 'tags', [
        { id: 'temporary', name: 'After' },
        { id: 'second', name: 'Second' },
      ]),
    ).toEqual({ upserted: 2 });
    expect(await read()).toMatchObject({ name: 'After', created_at: before['created_at'], created_by: before['created_by'] });
    expect(await expectJson<Json[]>(await api(owner, 'GET', '/tags'), 200)).toHaveLength(2);
  });
});
