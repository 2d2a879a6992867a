import {
  admin,
  api,
  createAccount,
  expectJson,
  expectProblem,
  expectSelfUrl,
  parseCsv,
  server,
  upsert,
  type ContentKind,
  type TestAccount,
} from './support';

/**
 * The experience kinds that the official CLI and the Airbyte connector read beyond the contract
 * (docs/api-contract.md#beyond-the-contract): each one a resource like pins, whose records keep the studio's document as it was
 * written through the admin API, with the managed fields beside it, times in milliseconds since 1970 as the
 * Airbyte connector's record schemas have them (docs/api-contract.md#records-and-timestamp-forms).
 */

type Json = Record<string, unknown>;

const isEpochMillis = (value: unknown) => Number.isInteger(value) && (value as number) > 1_600_000_000_000;

/** The kinds whose records are the studio's documents. */
const STUDIO_KINDS: ContentKind[] = ['launchpads', 'banners', 'checklists', 'flows-v2', 'embeds', 'nps'];

/** The fields whose values Guidepost sets itself; the authors and the state a writer names come back as written. */
const MANAGED_FIELDS = ['id', 'published', 'published_at', 'created_at', 'updated_at', 'url'];

/** A document as the web studio writes it: the fields its clients read, and fields Guidepost knows nothing of. */
function studioDocument(kind: string, id: string, name: string): Json {
  return {
    id,
    name,
    type: kind,
    account_id: 'studio-account-7',
    app_id: 'app-42',
    platform: 'web',
    state: 'DRAFT',
    frequency: 'every_time',
    created_by: 'ana@example.com',
    updated_by: 'bo@example.com',
    steps: [
      { id: 'step-1', type: 'modal', content: { html: '<p>Hello</p>' } },
      { id: 'step-2', actions: [] },
    ],
    studio_only: { theme: 'dark', weights: [1, 2.5, null], nested: { deep: true } },
  };
}

/** The studio's part of an answered record: everything but the managed fields. */
function studioPart(record: Json): Json {
  return Object.fromEntries(Object.entries(record).filter(([field]) => !MANAGED_FIELDS.includes(field) || field === 'id'));
}

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

async function getJson<T = Json>(path: string, who: TestAccount = account): Promise<T> {
  return expectJson<T>(await api(who, 'GET', path), 200);
}

describe.each(STUDIO_KINDS)('/%s', (kind) => {
  const second = studioDocument(kind, `${kind}-b`, 'Beta');
  const first = studioDocument(kind, `${kind}-a`, 'Alpha');

  beforeAll(async () => {
    // The admin CLI sends arrays; one record on its own is taken too.
    expect(await upsert(account, kind, [second])).toEqual({ upserted: 1 });
    expect(await upsert(account, kind, [first])).toEqual({ upserted: 1 });
  });

  it('answers 200 and an empty list for an account without any (the Airbyte connector checks its connection so, on /launchpads)', async () => {
    const fresh = await createAccount();
    expect(await getJson(`/${kind}`, fresh)).toEqual([]);
  });

  it('lists the records by name, then id, with the studio document as written', async () => {
    const records = await getJson<Json[]>(`/${kind}`);
    expect(records.map((record) => record['id'])).toEqual([first['id'], second['id']]);
    expect(records.map(studioPart)).toEqual([first, second]);
  });

  it('gets one record with the managed fields, times in epoch milliseconds', async () => {
    const record = await getJson(`/${kind}/${String(first['id'])}`);
    expect(studioPart(record)).toEqual(first);
    expect(record).toMatchObject({ published: false, published_at: null });
    expect(isEpochMillis(record['created_at'])).toBe(true);
    expect(isEpochMillis(record['updated_at'])).toBe(true);
    expect((await getJson<Json[]>(`/${kind}`))[0]).toEqual(record);
  });

  it('publishes and unpublishes, stamping published_at and keeping it on unpublish', async () => {
    const path = `/${kind}/${String(second['id'])}`;
    expect(await expectJson(await api(account, 'POST', `${path}/publish`), 200)).toMatchObject({ status: 200 });
    const published = await getJson(path);
    expect(published['published']).toBe(true);
    expect(isEpochMillis(published['published_at'])).toBe(true);
    expect(studioPart(published)).toEqual({ ...second, state: 'PUBLISHED' });

    expect(await expectJson(await api(account, 'POST', `${path}/unpublish`), 200)).toMatchObject({ status: 200 });
    const unpublished = await getJson(path);
    expect(unpublished).toMatchObject({ published: false, published_at: published['published_at'], state: 'DRAFT' });
  });

  it('keeps the creation time and takes the new document when the studio writes the record again', async () => {
    const path = `/${kind}/${String(first['id'])}`;
    const before = await getJson(path);
    const rewritten = { ...first, state: 'ARCHIVED', steps: [], added_later: 'x' };
    delete (rewritten as Json)['studio_only'];
    await upsert(account, kind, [rewritten]);
    const after = await getJson(path);
    expect(studioPart(after)).toEqual(rewritten);
    expect(after['created_at']).toEqual(before['created_at']);
  });

  it('answers 404 Problem Details naming an unknown id, for get, publish and unpublish', async () => {
    await expectProblem(await api(account, 'GET', `/${kind}/no-such-record`), 404, /no-such-record/);
    await expectProblem(await api(account, 'POST', `/${kind}/no-such-record/publish`), 404, /no-such-record/);
    await expectProblem(await api(account, 'POST', `/${kind}/no-such-record/unpublish`), 404, /no-such-record/);
  });

  it('answers 401 without credentials', async () => {
    const response = await fetch(`${server().baseUrl}/v2/accounts/${account.id}/${kind}`);
    await expectProblem(response, 401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('renders the list as CSV, nested fields as JSON text', async () => {
    const response = await api(account, 'GET', `/${kind}`, { headers: { Accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const { header, rows } = parseCsv(await response.text());
    expect(header).toEqual(expect.arrayContaining(['id', 'name', 'published', 'published_at', 'created_at', 'updated_at', 'steps']));
    expect(rows.map((row) => row['id'])).toEqual([first['id'], second['id']]);
    expect(JSON.parse(rows[1]['studio_only'])).toEqual(second['studio_only']);
  });
});

/** Every experience kind, pins and mobile included: what a client reads of any record, whichever model keeps it. */
const EVERY_KIND: ContentKind[] = ['pins', 'mobile', 'launchpads', 'banners', 'checklists', 'flows-v2', 'embeds', 'nps'];

describe.each(EVERY_KIND)('a record of /%s', (kind) => {
  let owner: TestAccount;

  beforeAll(async () => {
    owner = await createAccount();
    await upsert(owner, kind, [
      { id: 'plain', name: 'Plain' },
      { id: 'authored', name: 'Authored', created_by: 'ana@example.com', updated_by: 'ana@example.com' },
      { id: 'archived', name: 'Archived', state: 'ARCHIVED' },
      { id: 'live', name: 'Live', published: true },
    ]);
  });

  const read = (id: string) => getJson(`/${kind}/${id}`, owner);
  const command = async (id: string, name: 'publish' | 'unpublish') =>
    expect(await expectJson(await api(owner, 'POST', `/${kind}/${id}/${name}`), 200)).toMatchObject({ status: 200 });

  it('links to itself: a GET on its url with the same key answers the record', async () => {
    const record = await getJson(`/${kind}/plain`, owner);
    await expectSelfUrl(owner, record, `/${kind}/plain`);
    expect((await getJson<Json[]>(`/${kind}`, owner)).find((listed) => listed['id'] === 'plain')?.['url']).toBe(record['url']);
  });

  it('names its authors: guidepost-admin when the writer did not say, as for flows; the creator kept on a rewrite', async () => {
    expect(await getJson(`/${kind}/plain`, owner)).toMatchObject({ created_by: 'guidepost-admin', updated_by: 'guidepost-admin' });
    expect(await getJson(`/${kind}/authored`, owner)).toMatchObject({ created_by: 'ana@example.com', updated_by: 'ana@example.com' });
    await upsert(owner, kind, [{ id: 'authored', name: 'Authored again', updated_by: 'bo@example.com' }]);
    expect(await getJson(`/${kind}/authored`, owner)).toMatchObject({ created_by: 'ana@example.com', updated_by: 'bo@example.com' });
  });

  it('answers its times in epoch milliseconds, published_at null until first published', async () => {
    const record = await read('plain');
    expect([isEpochMillis(record['created_at']), isEpochMillis(record['updated_at']), record['published_at']]).toEqual([true, true, null]);
    const live = await read('live');
    expect([live['created_at'], live['updated_at'], live['published_at']].every(isEpochMillis)).toBe(true);
  });

  it('keeps published and state in step through publish and unpublish, repeats included', async () => {
    expect(await read('plain')).toMatchObject({ published: false, state: 'DRAFT' });
    expect(await read('live')).toMatchObject({ published: true, state: 'PUBLISHED' });
    for (const [name, expected] of [
      ['publish', { published: true, state: 'PUBLISHED' }],
      ['publish', { published: true, state: 'PUBLISHED' }],
      ['unpublish', { published: false, state: 'DRAFT' }],
      ['unpublish', { published: false, state: 'DRAFT' }],
    ] as const) {
      await command('plain', name);
      expect(await read('plain')).toMatchObject(expected);
    }
  });

  it('keeps an unpublished label of its own (ARCHIVED) until published, then unpublishes to DRAFT', async () => {
    await command('archived', 'unpublish');
    expect(await read('archived')).toMatchObject({ published: false, state: 'ARCHIVED' });
    await command('archived', 'publish');
    expect(await read('archived')).toMatchObject({ published: true, state: 'PUBLISHED' });
    await command('archived', 'unpublish');
    expect(await read('archived')).toMatchObject({ published: false, state: 'DRAFT' });
  });

  it('refuses a write whose state contradicts published, with a Problem naming the record and the field', async () => {
    const contradiction = [
      { id: 'ok', name: 'Ok' },
      { id: 'contradiction', name: 'C', state: 'PUBLISHED' },
    ];
    const response = await admin('PUT', `/admin/v1/accounts/${owner.id}/${kind}`, contradiction);
    expect((await expectProblem(response, 400)).detail).toBe('[1].state: can be PUBLISHED only when published is true');
    await expectProblem(await api(owner, 'GET', `/${kind}/contradiction`), 404, /contradiction/);
  });
});

describe('experience kinds apart', () => {
  it("keeps each kind's records under its own path", async () => {
    const other = await createAccount();
    await upsert(other, 'launchpads', [studioDocument('launchpads', 'shared-id', 'Launchpad')]);
    await upsert(other, 'banners', [studioDocument('banners', 'shared-id', 'Banner')]);
    expect((await getJson(`/launchpads/shared-id`, other))['name']).toBe('Launchpad');
    expect((await getJson(`/banners/shared-id`, other))['name']).toBe('Banner');
    await expectProblem(await api(other, 'GET', '/nps/shared-id'), 404, /shared-id/);
    await expectProblem(await api(account, 'GET', '/launchpads/shared-id'), 404, /shared-id/);
  });

  it('refuses a record without a name or with a managed field of the wrong type, naming the index and field', async () => {
    const nameless = await admin('PUT', `/admin/v1/accounts/${account.id}/checklists`, [{ id: 'ok', name: 'Ok' }, { id: 'no-name' }]);
    expect((await expectProblem(nameless, 400)).detail).toMatch(/^\[1\]\.name: /);
    const badTime = await admin('PUT', `/admin/v1/accounts/${account.id}/banners`, [{ id: 'b', name: 'B', created_at: 'yesterday' }]);
    expect((await expectProblem(badTime, 400)).detail).toMatch(/^\[0\]\.created_at: /);
    expect(await getJson<Json[]>('/checklists')).not.toContainEqual(expect.objectContaining({ id: 'ok' }));
  });

  it('refuses the admin upsert without the admin token', async () => {
    const response = await fetch(`${server().adminUrl}/admin/v1/accounts/${account.id}/launchpads`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([{ id: 'x', name: 'X' }]),
    });
    await expectProblem(response, 401);
  });
});
