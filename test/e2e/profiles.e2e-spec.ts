import { api, createAccount, eventually, expectJson, expectProblem, parseCsv, type TestAccount } from './support';
import { completedJob, expectAccepted } from './support-segments';
import {
  csvBody,
  eventuallyInHistory,
  getProfile,
  patchProfile,
  propertiesOf,
  setFilteringRules,
  STATUS_OK,
  uniqueId,
  userPath,
  type Json,
} from './support-people';

/**
 * End-user profiles as a client writes and reads them: PATCH merges key/value data (JSON, or one CSV
 * row), GET returns the whole profile, DELETE removes it through a job, and every write is recorded as
 * an internal `svc:profile_update` event. Filtering rules drop user properties at the door.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

/** The stored properties of a user (the profile without an echoed `user_id`). */
async function propertiesOfUser(userId: string, owner: TestAccount = account): Promise<Json> {
  return propertiesOf(await getProfile(owner, userId), 'user_id', userId);
}

describe('PATCH and GET /users/{user_id}/profile', () => {
  const everyJsonType = {
    plan: 'pro',
    seats: 12,
    ratio: 0.25,
    beta: true,
    trial: false,
    manager: null,
    address: { city: 'Lyon', zip: '69001', floors: [1, 2] },
    tags: ['a', 1, true, null, { nested: 'yes' }],
  };

  it('acknowledges a PATCH and returns every JSON type as it was sent', async () => {
    const userId = uniqueId('types');
    await patchProfile(account, userId, everyJsonType);
    expect(await propertiesOfUser(userId)).toEqual(everyJsonType);
  });

  it('merges a later PATCH: sent keys take the new value, other keys are kept', async () => {
    const userId = uniqueId('merge');
    await patchProfile(account, userId, everyJsonType);
    await patchProfile(account, userId, { seats: 13, beta: null, address: { city: 'Paris' }, added: 'new' });

    expect(await propertiesOfUser(userId)).toEqual({
      ...everyJsonType,
      seats: 13,
      beta: null,
      // A key's value is replaced whole, nested objects included.
      address: { city: 'Paris' },
      added: 'new',
    });
  });

  it('keeps profiles of different users and different accounts apart', async () => {
    const [first, second] = [uniqueId('apart'), uniqueId('apart')];
    await patchProfile(account, first, { plan: 'pro' });
    await patchProfile(account, second, { plan: 'free' });
    expect(await propertiesOfUser(first)).toEqual({ plan: 'pro' });
    expect(await propertiesOfUser(second)).toEqual({ plan: 'free' });

    const other = await createAccount();
    await expectProblem(await api(other, 'GET', userPath(first, 'profile')), 404, first);
  });

  it('answers 404 Problem Details naming an unknown user', async () => {
    const userId = uniqueId('nobody');
    await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404, userId);
  });

  it('renders the profile as CSV under Accept: text/csv: the keys as header, one row', async () => {
    const userId = uniqueId('csv-out');
    await patchProfile(account, userId, { plan: 'pro', seats: 12, beta: true, manager: null, address: { city: 'Lyon' } });

    const response = await api(account, 'GET', userPath(userId, 'profile'), { headers: { Accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const csv = parseCsv(await response.text());
    expect(csv.rows).toHaveLength(1);
    const row = propertiesOf(csv.rows[0], 'user_id', userId);
    // Null is an empty cell; objects occupy one cell as JSON text.
    expect(row).toEqual({ plan: 'pro', seats: '12', beta: 'true', manager: '', address: '{"city":"Lyon"}' });
    expect(csv.header.filter((column) => column !== 'user_id').sort()).toEqual(['address', 'beta', 'manager', 'plan', 'seats']);
  });

  describe('CSV body (a header line and one row)', () => {
    it('types the cells: numbers, booleans, text such as 007, an empty cell is absent', async () => {
      const userId = uniqueId('csv-in');
      await patchProfile(account, userId, { kept: 'from JSON', blank: 'stays' });

      const body = 'plan,seats,score,big,beta,trial,code,note,blank\npro,12,-3.5,1e3,true,false,007,"hello, ""world""",\n';
      const response = await api(account, 'PATCH', userPath(userId, 'profile'), csvBody(body));
      expect(await expectJson(response, 200)).toEqual(STATUS_OK);

      expect(await propertiesOfUser(userId)).toEqual({
        kept: 'from JSON',
        blank: 'stays',
        plan: 'pro',
        seats: 12,
        score: -3.5,
        big: 1000,
        beta: true,
        trial: false,
        code: '007',
        note: 'hello, "world"',
      });
    });

    it.each([
      ['a row whose cell count differs from the header', 'plan,seats\npro,12,extra\n', /line 2\b/i],
      ['a header without a row', 'plan,seats\n', /line 2\b/i],
      ['two rows', 'plan,seats\npro,12\nfree,1\n', /line 3\b/i],
      ['a broken quote', 'plan,seats\n"pro,12\n', /line 2\b/i],
      ['a column named twice', 'plan,plan\npro,free\n', /plan/],
    ])('rejects CSV with %s (400 naming the line) and stores nothing', async (_label, body, detail) => {
      const userId = uniqueId('csv-bad');
      await expectProblem(await api(account, 'PATCH', userPath(userId, 'profile'), csvBody(body)), 400, detail);
      await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404);
    });
  });

  describe('refused PATCH bodies change nothing', () => {
    it.each([
      ['an array', '[{"plan":"pro"}]'],
      ['a string', '"pro"'],
      ['a number', '42'],
      ['null', 'null'],
      ['malformed JSON', '{"plan": "pro"'],
    ])('rejects a JSON body that is %s (400)', async (_label, body) => {
      const userId = uniqueId('not-object');
      const response = await api(account, 'PATCH', userPath(userId, 'profile'), { body, headers: { 'Content-Type': 'application/json' } });
      await expectProblem(response, 400);
      await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404);
    });

    it.each(['text/plain', 'application/xml'])('rejects Content-Type %s (415)', async (contentType) => {
      const userId = uniqueId('media');
      const response = await api(account, 'PATCH', userPath(userId, 'profile'), {
        body: 'plan=pro',
        headers: { 'Content-Type': contentType },
      });
      await expectProblem(response, 415);
      await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404);
    });
  });
});

describe('DELETE /users/{user_id}/profile', () => {
  it('answers 202 with a job that answers at once, completes, and the profile is gone', async () => {
    const userId = uniqueId('delete');
    await patchProfile(account, userId, { plan: 'pro', seats: 3 });

    const ack = await expectAccepted(account, await api(account, 'DELETE', userPath(userId, 'profile')));
    const { job, completed } = await completedJob(account, ack);
    expect(job.name).toBe('Delete Profile');
    expect(completed.attributes).toMatchObject({ deleted: true });
    await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404, userId);

    // Written again, the profile starts afresh: nothing of the deleted one comes back.
    await patchProfile(account, userId, { plan: 'free' });
    expect(await propertiesOfUser(userId)).toEqual({ plan: 'free' });
  });

  it('answers 202 for a user without a profile too, and the job says nothing was deleted', async () => {
    const userId = uniqueId('never-existed');
    const ack = await expectAccepted(account, await api(account, 'DELETE', userPath(userId, 'profile')));
    const { completed } = await completedJob(account, ack);
    expect(completed.attributes).toMatchObject({ deleted: false });
    await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404, userId);
  });
});

describe('svc:profile_update', () => {
  it("records each PATCH as an internal event in the user's history, with the properties written", async () => {
    const userId = uniqueId('recorded');
    const before = Date.now();
    await patchProfile(account, userId, { plan: 'pro', seats: 4 });

    const event = await eventuallyInHistory(account, userId, (candidate) => candidate.name === 'svc:profile_update');
    expect(event).toMatchObject({ user_id: userId, name: 'svc:profile_update', attributes: { plan: 'pro', seats: 4 } });
    // Recorded when the PATCH happened (allowing for clocks a little apart).
    expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(before - 5_000);
    expect(Date.parse(event.timestamp)).toBeLessThanOrEqual(Date.now() + 5_000);
  });
});

describe('ingestion filtering rules on user properties', () => {
  let filtered: TestAccount;

  beforeAll(async () => {
    filtered = await createAccount();
  });

  /**
   * The profile service learns the rules from a bus message, so each probe writes a fresh user until
   * the result shows the rules in force, then returns that user's properties.
   */
  async function patchUntil(properties: Json, expected: Json): Promise<string> {
    return eventually(
      async () => {
        const userId = uniqueId('filtered');
        await patchProfile(filtered, userId, properties);
        expect(await propertiesOfUser(userId, filtered)).toEqual(expected);
        return userId;
      },
      15_000,
      300,
    );
  }

  it('deny mode drops the listed properties and keeps the others', async () => {
    await setFilteringRules(filtered, { mode: 'deny', user_properties: ['secret', 'ssn'] });
    const userId = await patchUntil({ secret: 's3cr3t', ssn: '123', plan: 'pro' }, { plan: 'pro' });

    // The CSV form is filtered the same way.
    const csv = await api(filtered, 'PATCH', userPath(userId, 'profile'), csvBody('secret,seats\nagain,5\n'));
    expect(await expectJson(csv, 200)).toEqual(STATUS_OK);
    expect(await propertiesOfUser(userId, filtered)).toEqual({ plan: 'pro', seats: 5 });

    // The recorded update carries only what was written.
    const event = await eventuallyInHistory(filtered, userId, (candidate) => candidate.name === 'svc:profile_update');
    expect(event.attributes ?? {}).not.toHaveProperty('secret');
    expect(event.attributes ?? {}).not.toHaveProperty('ssn');
  });

  it('allow mode keeps only the listed properties', async () => {
    await setFilteringRules(filtered, { mode: 'allow', event_names: ['svc:profile_update'], user_properties: ['plan', 'seats'] });
    await patchUntil({ plan: 'pro', seats: 2, secret: 'x', other: true }, { plan: 'pro', seats: 2 });
  });
});
