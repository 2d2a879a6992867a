import { admin, api, createAccount, expectJson, expectProblem, upsert, type TestAccount } from './support';
import { historyOfAtLeast, track, userPath, type Json } from './support-people';
import { createSegment, SEGMENT_FIELDS, segmentPath } from './support-segments';

/**
 * Unknown fields in JSON bodies (docs/api-contract.md#unknown-fields) as a sync tool sends them: its
 * own `_sync_id` beside the fields of every write, and records sent back as they were read. Each is
 * ignored, neither stored nor echoed, at any depth, while a known field of the wrong type is still a
 * 400 naming it. (The event export's case is in exports.e2e-spec.ts, beside its events.)
 */

const SYNC_ID = { _sync_id: 'sync-7f3a' };

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

describe('a segment write', () => {
  it('creates the segment and answers it without the unknown field', async () => {
    const created = await createSegment(account, { description: 'From the sync tool', ...SYNC_ID });
    expect(Object.keys(created).sort()).toEqual(SEGMENT_FIELDS);
    expect(created).toMatchObject({ description: 'From the sync tool' });
    expect(await expectJson(await api(account, 'GET', segmentPath(created.id)), 200)).toEqual(created);
  });

  it('changes the segment with a PATCH beside the unknown field, but not with the unknown field alone', async () => {
    const segment = await createSegment(account);
    const changed = await api(account, 'PATCH', segmentPath(segment.id), { json: { name: 'Renamed', ...SYNC_ID } });
    expect(await expectJson(changed, 200)).toMatchObject({ name: 'Renamed' });
    await expectProblem(await api(account, 'PATCH', segmentPath(segment.id), { json: SYNC_ID }), 400, /name.*description/);
  });

  it('still answers 400 naming a known field of the wrong type', async () => {
    await expectProblem(await api(account, 'POST', '/segments', { json: { name: 7, ...SYNC_ID } }), 400, /^name: must be string$/);
  });
});

describe('a content upsert of a record as it was read', () => {
  it('takes a flow back as GET answered it, with an unknown field, and stores neither', async () => {
    await upsert(account, 'flows', [{ id: 'synced-flow', name: 'Synced', tag_ids: [] }]);
    const read = await expectJson<Json>(await api(account, 'GET', '/flows/synced-flow'), 200);
    const written = await admin('PUT', `/admin/v1/accounts/${account.id}/flows`, [{ ...read, name: 'Synced again', ...SYNC_ID }]);
    expect(await expectJson(written, 200)).toEqual({ upserted: 1 });
    const reread = await expectJson<Json>(await api(account, 'GET', '/flows/synced-flow'), 200);
    expect(Object.keys(reread).sort()).toEqual(Object.keys(read).sort());
    expect(reread).toMatchObject({ name: 'Synced again', created_at: read['created_at'], url: read['url'] });
  });

  it('drops unknown fields inside a record too: the steps of a pin', async () => {
    await upsert(account, 'pins', [{ id: 'synced-pin', name: 'Pin', steps: [{ id: 'step-1', content: { html: '<p>Hi</p>' } }] }]);
    const read = await expectJson<Json & { steps: Json[] }>(await api(account, 'GET', '/pins/synced-pin'), 200);
    const steps = read.steps.map((step) => ({ ...step, ...SYNC_ID }));
    expect(await expectJson(await admin('PUT', `/admin/v1/accounts/${account.id}/pins`, [{ ...read, steps, ...SYNC_ID }]), 200)).toEqual({
      upserted: 1,
    });
    const reread = await expectJson<Json & { steps: Json[] }>(await api(account, 'GET', '/pins/synced-pin'), 200);
    expect(reread).not.toHaveProperty('_sync_id');
    expect(reread.steps).toEqual([expect.not.objectContaining(SYNC_ID)]);
    // The step's content is free-form: what the studio wrote is kept as written.
    expect(reread.steps[0]).toMatchObject({ content: { html: '<p>Hi</p>' } });
  });

  it('still answers 400 naming a known field of the wrong type, by its record', async () => {
    const response = await admin('PUT', `/admin/v1/accounts/${account.id}/flows`, [{ id: 'f', name: 'F', tag_ids: 'x', ...SYNC_ID }]);
    await expectProblem(response, 400, '[0].tag_ids: must be array');
  });
});

describe('a tracked event', () => {
  it('is recorded without the unknown fields, at the top and in its context', async () => {
    const event = {
      name: 'synced',
      timestamp: '2024-05-01T09:30:00Z',
      attributes: { plan: 'pro' },
      context: { url: 'https://x.test', ...SYNC_ID },
    };
    await track(account, 'sync-user', { ...event, ...SYNC_ID });
    const [recorded] = await historyOfAtLeast(account, 'sync-user', 1);
    expect(recorded).toEqual({ user_id: 'sync-user', name: 'synced', timestamp: '2024-05-01T09:30:00.000Z', attributes: { plan: 'pro' } });
  });

  it('keeps an unknown key inside attributes, which are free-form', async () => {
    await track(account, 'sync-attributes', { name: 'synced', timestamp: '2024-05-01T09:30:00Z', attributes: SYNC_ID });
    const [recorded] = await historyOfAtLeast(account, 'sync-attributes', 1);
    expect(recorded.attributes).toEqual(SYNC_ID);
  });

  it('still answers 400 naming a known field of the wrong type', async () => {
    const response = await api(account, 'POST', userPath('sync-user', 'events'), {
      json: { name: 'synced', timestamp: '2024-05-01T09:30:00Z', group_id: 5, ...SYNC_ID },
    });
    await expectProblem(response, 400, /^group_id: /);
  });
});
