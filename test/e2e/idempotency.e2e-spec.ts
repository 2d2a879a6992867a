import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { api, createAccount, expectJson, expectProblem, type ApiInit, type HttpMethod, type JobDetail, type TestAccount } from './support';
import { history, historyOfAtLeast, mixedUpload, ndjsonBody, ndjsonText, STATUS_OK, uniqueId, userPath } from './support-people';
import type { AsyncAcknowledgement } from './support-segments';

/**
 * `Idempotency-Key` on the POST, PATCH and DELETE of the public API, as a client sees it, in either
 * shape: a retry with the same key and request gets the first answer (`Idempotent-Replayed: true`)
 * and runs nothing twice; the same key with another request is a 422; a retry while the first still
 * runs is a 409 or the replay. And `event_id` on track, which stores a retried event once without any
 * header.
 */

const INSTANT = '2024-05-01T09:30:00.000Z';
const REPLAYED = 'idempotent-replayed';

type JobSummary = Omit<JobDetail, 'events'>;

interface Answer {
  readonly status: number;
  readonly replayed: string | null;
  readonly location: string | null;
  readonly contentType: string | null;
  readonly text: string;
}

/** Sends a request with `Idempotency-Key: key` and reads its answer whole. */
async function keyed(account: TestAccount, method: HttpMethod, path: string, key: string, init: ApiInit = {}): Promise<Answer> {
  const response = await api(account, method, path, { ...init, headers: { ...init.headers, 'Idempotency-Key': key } });
  return {
    status: response.status,
    replayed: response.headers.get(REPLAYED),
    location: response.headers.get('location'),
    contentType: response.headers.get('content-type'),
    text: await response.text(),
  };
}

async function jobs(account: TestAccount): Promise<JobSummary[]> {
  return expectJson<JobSummary[]>(await api(account, 'GET', '/jobs'), 200);
}

/** What a Problem answer says, for checks on answers read whole. */
function problemOf(answer: Answer): { status: number; detail: string } {
  return JSON.parse(answer.text) as { status: number; detail: string };
}

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

describe('a retried request with the same Idempotency-Key', () => {
  it('track: answers the same and stores one event', async () => {
    const userId = uniqueId('keyed-track');
    const key = randomUUID();
    const event = { name: 'checkout', timestamp: INSTANT, attributes: { cart: 3 } };
    const first = await keyed(account, 'POST', userPath(userId, 'events'), key, { json: event });
    const retry = await keyed(account, 'POST', userPath(userId, 'events'), key, { json: event });
    expect(first).toMatchObject({ status: 200, replayed: null });
    expect(JSON.parse(first.text)).toEqual(STATUS_OK);
    expect(retry).toMatchObject({ status: 200, replayed: 'true', text: first.text, contentType: first.contentType });

    // A later event of the same user shows the first has reached history, which holds it once.
    await keyed(account, 'POST', userPath(userId, 'events'), randomUUID(), {
      json: { name: 'marker', timestamp: '2024-05-01T09:31:00.000Z' },
    });
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events.map((stored) => stored.name).sort()).toEqual(['checkout', 'marker']);
  });

  it('import (NDJSON): names the same job, and no second job appears', async () => {
    const importer = await createAccount();
    const key = randomUUID();
    const body = ndjsonBody(
      ndjsonText([
        { user_id: 'i-1', plan: 'pro' },
        { user_id: 'i-2', plan: 'free' },
      ]),
    );
    const first = await keyed(importer, 'POST', '/import/profiles', key, body);
    const retry = await keyed(importer, 'POST', '/import/profiles', key, body);
    expect(first.status).toBe(202);
    const ack = JSON.parse(first.text) as AsyncAcknowledgement;
    expect(retry).toMatchObject({ status: 202, replayed: 'true' });
    expect((JSON.parse(retry.text) as AsyncAcknowledgement).job_id).toBe(ack.job_id);
    expect((await jobs(importer)).map((job) => job.id)).toEqual([ack.job_id]);
  });

  it('import (uploaded file): the same bytes, boundary included, name the same job', async () => {
    const importer = await createAccount();
    const key = randomUUID();
    // Built once, as a client retrying a request sends it again; a new boundary would be another body.
    const upload = mixedUpload('user_id,plan\nu-1,pro\n', 'users.csv', 'text/csv');
    const first = await keyed(importer, 'POST', '/import/profiles', key, upload);
    const retry = await keyed(importer, 'POST', '/import/profiles', key, upload);
    expect(first.status).toBe(202);
    expect(retry).toMatchObject({ status: 202, replayed: 'true', text: first.text });
    expect(await jobs(importer)).toHaveLength(1);
  });

  it('event export: names the same job, and no second job appears', async () => {
    const exporter = await createAccount();
    const key = randomUUID();
    const request = { json: { format: 'json', conditions: [], start_time: 0 } };
    const first = await keyed(exporter, 'POST', '/export/events', key, request);
    const retry = await keyed(exporter, 'POST', '/export/events', key, request);
    expect(first.status).toBe(202);
    expect(retry).toMatchObject({ status: 202, replayed: 'true', text: first.text });
    const { job_id: jobId } = JSON.parse(first.text) as AsyncAcknowledgement;
    expect((await jobs(exporter)).map((job) => job.id)).toEqual([jobId]);
  });

  it('PATCH profile: answers the same, and the profile is as the first request left it', async () => {
    const userId = uniqueId('keyed-profile');
    const key = randomUUID();
    const first = await keyed(account, 'PATCH', userPath(userId, 'profile'), key, { json: { plan: 'pro', seats: 2 } });
    // The profile changes in between; the retry must not write its properties again.
    expect(await expectJson(await api(account, 'PATCH', userPath(userId, 'profile'), { json: { plan: 'enterprise' } }), 200)).toEqual(
      STATUS_OK,
    );
    const retry = await keyed(account, 'PATCH', userPath(userId, 'profile'), key, { json: { plan: 'pro', seats: 2 } });
    expect(first.status).toBe(200);
    expect(retry).toMatchObject({ status: 200, replayed: 'true', text: first.text });
    const profile = await expectJson<Record<string, unknown>>(await api(account, 'GET', userPath(userId, 'profile')), 200);
    expect(profile).toMatchObject({ plan: 'enterprise', seats: 2 });
  });

  it('segment creation: the same segment (201) with the same Location, not a second one', async () => {
    const segmenter = await createAccount();
    const key = randomUUID();
    const first = await keyed(segmenter, 'POST', '/segments', key, { json: { name: 'Keyed' } });
    const retry = await keyed(segmenter, 'POST', '/segments', key, { json: { name: 'Keyed' } });
    expect(first.status).toBe(201);
    expect(retry).toMatchObject({ status: 201, replayed: 'true', text: first.text, location: first.location });
    const segments = await expectJson<unknown[]>(await api(segmenter, 'GET', '/segments'), 200);
    expect(segments).toHaveLength(1);
  });

  it('replays a 4xx answer too', async () => {
    const key = randomUUID();
    const first = await keyed(account, 'POST', '/segments', key, { json: { description: 'no name' } });
    const retry = await keyed(account, 'POST', '/segments', key, { json: { description: 'no name' } });
    expect(first.status).toBe(400);
    expect(problemOf(first).detail).toMatch(/name/);
    expect(retry).toMatchObject({ status: 400, replayed: 'true', text: first.text, contentType: first.contentType });
  });
});

describe('the same Idempotency-Key with another request', () => {
  it('is a 422 naming the header: another body', async () => {
    const userId = uniqueId('keyed-other');
    const key = randomUUID();
    expect((await keyed(account, 'POST', userPath(userId, 'events'), key, { json: { name: 'a', timestamp: INSTANT } })).status).toBe(200);
    const other = await api(account, 'POST', userPath(userId, 'events'), {
      json: { name: 'b', timestamp: INSTANT },
      headers: { 'Idempotency-Key': key },
    });
    await expectProblem(other, 422, /^Idempotency-Key: .*another body/);
  });

  it('is a 422 naming the header: another path or method', async () => {
    const key = randomUUID();
    const userId = uniqueId('keyed-path');
    expect((await keyed(account, 'PATCH', userPath(userId, 'profile'), key, { json: { plan: 'pro' } })).status).toBe(200);
    const otherPath = await api(account, 'PATCH', userPath(`${userId}-2`, 'profile'), {
      json: { plan: 'pro' },
      headers: { 'Idempotency-Key': key },
    });
    await expectProblem(otherPath, 422, /^Idempotency-Key: this key was first used with PATCH /);
    const otherMethod = await api(account, 'DELETE', userPath(userId, 'profile'), { headers: { 'Idempotency-Key': key } });
    await expectProblem(otherMethod, 422, /^Idempotency-Key: /);
  });
});

describe('concurrent requests with one Idempotency-Key', () => {
  it('run once: one answer is the original, every other a 409 or its replay; one event is stored', async () => {
    const userId = uniqueId('keyed-race');
    const key = randomUUID();
    const event = { name: 'raced', timestamp: INSTANT };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => keyed(account, 'POST', userPath(userId, 'events'), key, { json: event })),
    );
    const originals = answers.filter((answer) => answer.status === 200 && answer.replayed === null);
    const others = answers.filter((answer) => !originals.includes(answer));
    expect(originals).toHaveLength(1);
    for (const answer of others) {
      if (answer.status === 409) expect(problemOf(answer).detail).toMatch(/^Idempotency-Key: .*still being processed/);
      else expect(answer).toMatchObject({ status: 200, replayed: 'true' });
    }
    await keyed(account, 'POST', userPath(userId, 'events'), randomUUID(), {
      json: { name: 'marker', timestamp: '2024-05-01T09:31:00.000Z' },
    });
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events.filter((stored) => stored.name === 'raced')).toHaveLength(1);
  });
});

describe('Idempotency-Key scope and form', () => {
  it('is per account: another account with the same key runs its own request', async () => {
    const other = await createAccount();
    const key = randomUUID();
    const mine = await keyed(account, 'POST', '/segments', key, { json: { name: 'Mine' } });
    const theirs = await keyed(other, 'POST', '/segments', key, { json: { name: 'Mine' } });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.replayed).toBeNull();
    expect((JSON.parse(theirs.text) as { id: string }).id).not.toBe((JSON.parse(mine.text) as { id: string }).id);
  });

  it('is a 400 naming the header when it is longer than 255 characters or not printable ASCII', async () => {
    const path = userPath(uniqueId('bad-key'), 'events');
    const event = { json: { name: 'never', timestamp: INSTANT } };
    await expectProblem(
      await api(account, 'POST', path, { ...event, headers: { 'Idempotency-Key': 'k'.repeat(256) } }),
      400,
      /^Idempotency-Key: /,
    );
    await expectProblem(
      await api(account, 'POST', path, { ...event, headers: { 'Idempotency-Key': 'tab\there' } }),
      400,
      /^Idempotency-Key: /,
    );
  });

  it('is ignored on a GET', async () => {
    const response = await api(account, 'GET', '/segments', { headers: { 'Idempotency-Key': 'k'.repeat(300) } });
    expect(response.status).toBe(200);
    expect(response.headers.get(REPLAYED)).toBeNull();
    await response.arrayBuffer();
  });
});

describe('event_id on track', () => {
  it('stores an event sent again with the same event_id once, the first copy, without any header; analytics counts it once', async () => {
    const userId = uniqueId('event-id');
    const event = { name: 'purchase', timestamp: INSTANT, event_id: `order-${randomUUID()}`, attributes: { amount: 12 } };
    for (let sent = 0; sent < 2; sent += 1) {
      expect(await expectJson(await api(account, 'POST', userPath(userId, 'events'), { json: event }), 200)).toEqual(STATUS_OK);
    }
    await historyOfAtLeast(account, userId, 1);
    // Sent again after the first copy was stored, with other attributes: the first copy stays.
    await api(account, 'POST', userPath(userId, 'events'), { json: { ...event, attributes: { amount: 99 } } }).then((response) =>
      expectJson(response, 200),
    );
    // Two more events of the user without event_id: both are stored (nothing changes without the field).
    for (let sent = 0; sent < 2; sent += 1) {
      await api(account, 'POST', userPath(userId, 'events'), { json: { name: 'view', timestamp: INSTANT } }).then((response) =>
        expectJson(response, 200),
      );
    }
    await historyOfAtLeast(account, userId, 3);
    // Give a duplicate time to arrive, were there one.
    await delay(2_000);
    const events = await history(account, userId);
    expect(events.filter((stored) => stored.name === 'purchase')).toEqual([
      { user_id: userId, name: 'purchase', timestamp: INSTANT, attributes: { amount: 12 } },
    ]);
    expect(events.filter((stored) => stored.name === 'view')).toHaveLength(2);
    const counted = await api(account, 'POST', '/analytics/query', {
      json: {
        start_time: '2024-05-01T00:00:00Z',
        end_time: '2024-05-02T00:00:00Z',
        metrics: ['events'],
        dimensions: ['name'],
        conditions: [['user_id', '==', userId]],
      },
    });
    expect(await expectJson(counted, 200)).toEqual([
      { name: 'view', events: 2 },
      { name: 'purchase', events: 1 },
    ]);
  });

  it('refuses an event_id that is empty or over 255 characters with a 400 naming it', async () => {
    const path = userPath(uniqueId('event-id-bad'), 'events');
    await expectProblem(await api(account, 'POST', path, { json: { name: 'x', timestamp: INSTANT, event_id: '' } }), 400, /^event_id: /);
    await expectProblem(
      await api(account, 'POST', path, { json: { name: 'x', timestamp: INSTANT, event_id: 'e'.repeat(256) } }),
      400,
      /^event_id: /,
    );
  });
});
