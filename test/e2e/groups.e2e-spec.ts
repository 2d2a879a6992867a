import {
  api,
  createAccount,
  eventually,
  expectJson,
  expectProblem,
  parseCsv,
  type ApiInit,
  type HttpMethod,
  type TestAccount,
} from './support';
import { handBuiltMultipart } from './support-segments';
import {
  BODY_LIMIT_DETAIL,
  csvBody,
  eventuallyInHistory,
  formUpload,
  getGroupProfile,
  getProfile,
  groupPath,
  mixedUpload,
  ndjsonBody,
  oversizedLines,
  patchProfile,
  propertiesOf,
  setFilteringRules,
  STATUS_OK,
  uniqueId,
  userPath,
  type Json,
} from './support-people';

/**
 * Group profiles (read and merge like user profiles) and the association of users with a group, which
 * sets each user's `group_id` synchronously: when the 200 arrives, every profile says so.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

async function patchGroup(groupId: string, properties: Json, owner: TestAccount = account): Promise<void> {
  expect(await expectJson(await api(owner, 'PATCH', groupPath(groupId, 'profile'), { json: properties }), 200)).toEqual(STATUS_OK);
}

async function propertiesOfGroup(groupId: string, owner: TestAccount = account): Promise<Json> {
  return propertiesOf(await getGroupProfile(owner, groupId), 'group_id', groupId);
}

async function propertiesOfUser(userId: string): Promise<Json> {
  return propertiesOf(await getProfile(account, userId), 'user_id', userId);
}

async function associate(groupId: string, init: ApiInit, method: HttpMethod = 'PATCH'): Promise<void> {
  expect(await expectJson(await api(account, method, groupPath(groupId, 'users'), init), 200)).toEqual(STATUS_OK);
}

describe('PATCH and GET /groups/{group_id}/profile', () => {
  it('merges key/value data of every JSON type, keeping the other keys', async () => {
    const groupId = uniqueId('group');
    const first = { industry: 'retail', size: 50, active: true, owner: null, address: { city: 'Lyon' }, tags: ['a', 1] };
    await patchGroup(groupId, first);
    expect(await propertiesOfGroup(groupId)).toEqual(first);

    await patchGroup(groupId, { size: 51, address: { city: 'Paris' }, added: false });
    expect(await propertiesOfGroup(groupId)).toEqual({ ...first, size: 51, address: { city: 'Paris' }, added: false });
  });

  it('answers 404 Problem Details naming an unknown group', async () => {
    const groupId = uniqueId('no-group');
    await expectProblem(await api(account, 'GET', groupPath(groupId, 'profile')), 404, groupId);
  });

  it('renders the group profile as CSV under Accept: text/csv', async () => {
    const groupId = uniqueId('csv-group');
    await patchGroup(groupId, { industry: 'retail', size: 5 });
    const response = await api(account, 'GET', groupPath(groupId, 'profile'), { headers: { Accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const csv = parseCsv(await response.text());
    expect(csv.rows.map((row) => propertiesOf(row, 'group_id', groupId))).toEqual([{ industry: 'retail', size: '5' }]);
  });

  it('keeps group profiles apart from user profiles with the same id', async () => {
    const id = uniqueId('same-id');
    await patchGroup(id, { kind: 'group' });
    await expectProblem(await api(account, 'GET', userPath(id, 'profile')), 404);
    await patchProfile(account, id, { kind: 'user' });
    expect(await propertiesOfGroup(id)).toEqual({ kind: 'group' });
  });

  it.each([
    ['an array', '[{"industry":"retail"}]', 'application/json', 400],
    ['a string', '"retail"', 'application/json', 400],
    ['malformed JSON', '{"industry": ', 'application/json', 400],
    ['text/plain', 'industry=retail', 'text/plain', 415],
  ])('refuses a body that is %s and creates nothing', async (_label, body, contentType, status) => {
    const groupId = uniqueId('refused');
    await expectProblem(
      await api(account, 'PATCH', groupPath(groupId, 'profile'), { body, headers: { 'Content-Type': contentType } }),
      status,
    );
    await expectProblem(await api(account, 'GET', groupPath(groupId, 'profile')), 404);
  });
});

describe('POST and PATCH /groups/{group_id}/users', () => {
  type Encoding = [label: string, encode: (ids: readonly string[]) => ApiInit];
  const csvWithHeader = (header: string) => (ids: readonly string[]) => `${header}\n${ids.join('\n')}\n`;
  const ndjsonIds = (ids: readonly string[]) => `${ids.map((id) => JSON.stringify(id)).join('\n')}\n`;

  const encodings: Encoding[] = [
    ['JSON { user_ids }', (ids) => ({ json: { user_ids: ids } })],
    ['NDJSON strings', (ids) => ndjsonBody(`\n  ${ndjsonIds(ids).replace(/\n/g, '\n\n  ')}`)],
    ['CSV with header user_id', (ids) => csvBody(csvWithHeader('user_id')(ids))],
    ['CSV with header userId and CRLF', (ids) => csvBody(csvWithHeader('userId')(ids).replace(/\n/g, '\r\n'))],
    ['CSV without header', (ids) => csvBody(ids.join('\n'))],
    ['a multipart/form-data NDJSON file', (ids) => formUpload(ndjsonIds(ids), 'ids.ndjson', 'application/x-ndjson')],
    ['a multipart/form-data CSV file', (ids) => formUpload(csvWithHeader('user_id')(ids), 'ids.csv', 'text/csv')],
    ['a multipart/mixed CSV file', (ids) => mixedUpload(csvWithHeader('userId')(ids), 'ids.csv', 'text/csv')],
    ['a multipart/mixed NDJSON file', (ids) => mixedUpload(ndjsonIds(ids), 'ids.ndjson', 'application/x-ndjson')],
  ];
  const methods: HttpMethod[] = ['PATCH', 'POST'];
  const cases = methods.flatMap((method) => encodings.map(([label, encode]) => [method, label, encode] as const));

  it.each(cases)('%s with %s sets group_id on every profile before answering', async (method, _label, encode) => {
    const groupId = uniqueId('group');
    const ids = [uniqueId('member'), uniqueId('member'), uniqueId('member')];
    await associate(groupId, encode(ids), method);
    for (const id of ids) expect(await propertiesOfUser(id)).toEqual({ group_id: groupId });
  });

  it('keeps the other properties of an existing profile', async () => {
    const [groupId, userId] = [uniqueId('group'), uniqueId('member')];
    await patchProfile(account, userId, { plan: 'pro', seats: 2 });
    await associate(groupId, { json: { user_ids: [userId] } });
    expect(await propertiesOfUser(userId)).toEqual({ plan: 'pro', seats: 2, group_id: groupId });
  });

  it('moves a user: the last association wins', async () => {
    const [first, second, userId, stays] = [uniqueId('group'), uniqueId('group'), uniqueId('member'), uniqueId('member')];
    await associate(first, { json: { user_ids: [userId, stays] } });
    await associate(second, { json: { user_ids: [userId] } }, 'POST');
    expect(await propertiesOfUser(userId)).toEqual({ group_id: second });
    expect(await propertiesOfUser(stays)).toEqual({ group_id: first });
  });

  it('accepts a repeated id and an empty list', async () => {
    const [groupId, userId] = [uniqueId('group'), uniqueId('member')];
    await associate(groupId, { json: { user_ids: [userId, userId] } });
    expect(await propertiesOfUser(userId)).toEqual({ group_id: groupId });
    await associate(groupId, { json: { user_ids: [] } });
  });

  it("records the association as svc:profile_update in the user's history", async () => {
    const [groupId, userId] = [uniqueId('group'), uniqueId('member')];
    await associate(groupId, { json: { user_ids: [userId] } });
    const event = await eventuallyInHistory(account, userId, (candidate) => candidate.name === 'svc:profile_update');
    expect(event.attributes).toEqual({ group_id: groupId });
  });

  describe('refused requests apply nothing', () => {
    it.each([
      ['a number on line 2', (first: string) => ndjsonBody(`"${first}"\n42\n`)],
      ['malformed JSON on line 2', (first: string) => ndjsonBody(`"${first}"\n"unterminated\n`)],
      ['an object on line 2', (first: string) => ndjsonBody(`"${first}"\n{"user_id":"x"}\n`)],
      ['two cells on line 2 of CSV', (first: string) => csvBody(`user_id\n${first},extra\n`)],
    ])('answers 400 naming the line for %s; the valid line before it is not applied', async (_label, body) => {
      const [groupId, first] = [uniqueId('group'), uniqueId('member')];
      const response = await api(account, 'PATCH', groupPath(groupId, 'users'), body(first));
      await expectProblem(response, 400, /line 2\b/i);
      await expectProblem(await api(account, 'GET', userPath(first, 'profile')), 404);
    });

    it.each([
      ['without user_ids', {}],
      ['with user_ids not an array', { user_ids: 'alice' }],
      ['with a number among user_ids', { user_ids: ['alice', 7] }],
      ['with an empty id', { user_ids: ['alice', ''] }],
    ])('answers 400 naming user_ids for JSON %s', async (_label, body) => {
      await expectProblem(await api(account, 'POST', groupPath(uniqueId('group'), 'users'), { json: body }), 400, /user_ids/);
    });

    it('answers 400 naming file for a multipart upload without a file part', async () => {
      const init = handBuiltMultipart('mixed', { field: 'upload', fileName: 'ids.csv', contentType: 'text/csv', content: 'user_id\nx\n' });
      await expectProblem(await api(account, 'PATCH', groupPath(uniqueId('group'), 'users'), init), 400, /file/);
    });

    it('answers 413 naming the limit for a body over 20 MB, and nobody is associated', async () => {
      const [groupId, first] = [uniqueId('group'), uniqueId('member')];
      const body = `"${first}"\n${oversizedLines('"padding-user-id-0000000000"')}`;
      await expectProblem(await api(account, 'POST', groupPath(groupId, 'users'), ndjsonBody(body)), 413, BODY_LIMIT_DETAIL);
      await expectProblem(await api(account, 'GET', userPath(first, 'profile')), 404);
    });

    it.each(['text/plain', 'application/xml'])('answers 415 for Content-Type %s', async (contentType) => {
      const response = await api(account, 'PATCH', groupPath(uniqueId('group'), 'users'), {
        body: 'alice\n',
        headers: { 'Content-Type': contentType },
      });
      await expectProblem(response, 415);
    });
  });
});

describe('ingestion filtering rules on group properties', () => {
  it('drops denied group properties (deny mode) and keeps only allowed ones (allow mode)', async () => {
    const filtered = await createAccount();
    const patchUntil = (properties: Json, expected: Json) =>
      eventually(
        async () => {
          const groupId = uniqueId('filtered');
          await patchGroup(groupId, properties, filtered);
          expect(await propertiesOfGroup(groupId, filtered)).toEqual(expected);
        },
        15_000,
        300,
      );

    await setFilteringRules(filtered, { mode: 'deny', group_properties: ['internal'] });
    await patchUntil({ internal: 'x', industry: 'retail' }, { industry: 'retail' });

    await setFilteringRules(filtered, { mode: 'allow', group_properties: ['industry'] });
    await patchUntil({ industry: 'saas', size: 3 }, { industry: 'saas' });
  });
});
