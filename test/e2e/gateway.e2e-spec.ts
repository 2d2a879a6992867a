import { connect } from 'node:net';
import {
  accountUrl,
  admin,
  api,
  basicAuthorization,
  createAccount,
  createApiKey,
  eventually,
  expectJson,
  expectProblem,
  parseCsv,
  server,
  upsert,
  type TestAccount,
} from './support';

/**
 * What every client meets before any resource: authentication, account scoping, routing errors,
 * content types, size limits, throttling, the version header and CSV rendering.
 */

const API_VERSION = /^2\.32\.0\+guidepost\.\S+$/;
const TAG_FIELDS = ['id', 'name', 'url', 'created_at', 'updated_at', 'created_by', 'updated_by'];

let account: TestAccount;
let otherAccount: TestAccount;

beforeAll(async () => {
  [account, otherAccount] = await Promise.all([createAccount(), createAccount()]);
  await upsert(account, 'tags', [
    { id: 'onboarding', name: 'Onboarding' },
    { id: 'beta', name: 'Beta, "quoted"' },
  ]);
  await upsert(account, 'flows', [{ id: 'welcome', name: 'Welcome tour' }]);
});

function anonymous(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(accountUrl(account, path), { headers });
}

describe('authentication', () => {
  it('answers 401 with a Basic challenge when the Authorization header is missing', async () => {
    const response = await anonymous('/tags');
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic\b/i);
    await expectProblem(response, 401, /authorization/i);
  });

  it.each([
    ['another scheme', 'Bearer abcdef'],
    ['no credentials after the scheme', 'Basic'],
    ['credentials that are not base64', 'Basic %%%not-base64%%%'],
    ['no colon between key and secret', `Basic ${Buffer.from('just-a-key').toString('base64')}`],
    ['an empty secret', `Basic ${Buffer.from('some-key:').toString('base64')}`],
  ])('answers 401 for a malformed Authorization header (%s)', async (_case, authorization) => {
    const response = await anonymous('/tags', { Authorization: authorization });
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic\b/i);
    await expectProblem(response, 401);
  });

  it('answers 401 for a wrong secret and for an unknown key', async () => {
    const wrongSecret = await anonymous('/tags', { Authorization: basicAuthorization(account.key, `${account.secret}x`) });
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic\b/i);
    await expectProblem(wrongSecret, 401);
    await expectProblem(await anonymous('/tags', { Authorization: basicAuthorization('no-such-key', 'no-such-secret') }), 401);
  });

  it('answers 401 before revealing whether a route exists', async () => {
    await expectProblem(await anonymous('/no-such-resource'), 401);
  });

  it('accepts the key as user name and the secret as password', async () => {
    const response = await api(account, 'GET', '/tags');
    expect(response.status).toBe(200);
  });

  it('answers 403 when the key belongs to another account', async () => {
    const response = await fetch(accountUrl(otherAccount, '/tags'), {
      headers: { Authorization: basicAuthorization(account.key, account.secret) },
    });
    await expectProblem(response, 403, new RegExp(otherAccount.id));
    const unknownAccount = await fetch(accountUrl({ id: 'no-such-account' }, '/flows'), {
      headers: { Authorization: basicAuthorization(account.key, account.secret) },
    });
    await expectProblem(unknownAccount, 403);
  });

  it('stops accepting a key once it is revoked (within the documented cache lifetime)', async () => {
    const extra = { id: account.id, ...(await createApiKey(account.id)) };
    expect((await api(extra, 'GET', '/tags')).status).toBe(200);

    const revoked = await admin('DELETE', `/admin/v1/accounts/${account.id}/api_keys/${encodeURIComponent(extra.key)}`);
    expect(revoked.status).toBe(200);

    await eventually(async () => expectProblem(await api(extra, 'GET', '/tags'), 401), 40_000, 500);
    expect((await api(account, 'GET', '/tags')).status).toBe(200);
  }, 60_000);
});

describe('routing errors', () => {
  it('answers 404 Problem Details for unknown routes under the account', async () => {
    await expectProblem(await api(account, 'GET', '/no-such-resource'), 404);
    await expectProblem(await api(account, 'POST', '/flows/welcome/archive'), 404);
  });

  it('answers 404 Problem Details for unknown routes outside the public API', async () => {
    await expectProblem(await fetch(`${server().baseUrl}/no-such-route`), 404);
    await expectProblem(await fetch(`${server().baseUrl}/v3/accounts/${account.id}/flows`), 404);
  });
});

/**
 * Sends a request's head alone, announcing a body of the largest size the server takes that it never
 * sends, and resolves with the status answered, or null when none came within `waitMs` (a server
 * that waits for the body before judging the request).
 */
function statusBeforeBody(method: string, path: string, waitMs = 5_000): Promise<number | null> {
  // The admin API where it is served (its own port behind the chart's admin Service), the rest at the base URL.
  const { hostname, port } = new URL(path.startsWith('/admin/') ? server().adminUrl : server().baseUrl);
  const head = `${method} ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), hostname, () => socket.write(head));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!received.includes('\r\n\r\n')) return;
      socket.destroy();
      resolve(Number(received.split(' ', 2)[1]));
    });
    socket.on('error', reject);
    socket.setTimeout(waitMs, () => {
      socket.destroy();
      resolve(null);
    });
  });
}

describe('the admin and internal APIs', () => {
  it.each([
    ['creating an account', 'POST', '/admin/v1/accounts'],
    ['upserting flows', 'PUT', '/admin/v1/accounts/acme/flows'],
    ['replaying dead letters', 'POST', '/admin/v1/dead-letters/ingestion/replay'],
  ])('refuse %s without the admin token at once: 401 before a 20 MB body is sent', async (_case, method, path) => {
    expect(await statusBeforeBody(method, path)).toBe(401);
  });

  it('refuse an internal call from outside at once: 404 before a 20 MB body is sent', async () => {
    expect(await statusBeforeBody('POST', '/internal/v1/accounts/acme/jobs')).toBe(404);
  });
});

describe('request bodies', () => {
  it.each([
    ['text/plain', 'name=Plain'],
    ['application/xml', '<segment><name>Xml</name></segment>'],
    ['application/x-www-form-urlencoded', 'name=Form'],
  ])('answers 415 naming the accepted types for %s', async (contentType, body) => {
    const response = await api(account, 'POST', '/segments', { body, headers: { 'Content-Type': contentType } });
    await expectProblem(response, 415, /application\/json/);
  });

  it('accepts JSON with a charset parameter', async () => {
    const response = await api(account, 'POST', '/segments', {
      body: JSON.stringify({ name: 'Charset' }),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });

  it('answers 400 for malformed JSON, saying that the JSON is at fault', async () => {
    const response = await api(account, 'POST', '/segments', {
      body: '{"name": "Broken",',
      headers: { 'Content-Type': 'application/json' },
    });
    await expectProblem(response, 400, /json/i);
  });

  it('answers 413 naming the limit for a JSON body over 20 MB', async () => {
    const body = JSON.stringify({ name: 'Huge', description: 'x'.repeat(21 * 1024 * 1024) });
    const response = await api(account, 'POST', '/segments', { body, headers: { 'Content-Type': 'application/json' } });
    await expectProblem(response, 413, /20\s?MB|20971520|20 ?MiB/i);
    // The server is still serving after refusing it.
    expect((await api(account, 'GET', '/tags')).status).toBe(200);
  });

  it('accepts publish with no body and no Content-Type', async () => {
    const response = await fetch(accountUrl(account, '/flows/welcome/publish'), {
      method: 'POST',
      headers: { Authorization: basicAuthorization(account.key, account.secret) },
    });
    expect(await expectJson(response, 200)).toEqual({ status: 200, title: 'OK' });
  });
});

describe('query parameters', () => {
  it('ignores unknown query parameters such as page and limit on lists', async () => {
    const plain = await expectJson(await api(account, 'GET', '/tags'), 200);
    const paged = await expectJson(await api(account, 'GET', '/tags?page=2&limit=5'), 200);
    expect(paged).toEqual(plain);
    expect((await api(account, 'GET', '/flows?page=2&limit=5&sort=name')).status).toBe(200);
  });
});

describe('throttling', () => {
  /**
   * Requests sent at once to pass the default limit (60 a second): the server must see more than 60 in
   * one second, which holds unless it takes 5 s to receive them all (a slow container's port forward
   * took over 1.6 s for 100).
   */
  const BURST = 300;

  it('answers 429 with Retry-After, RateLimit and X-RateLimit headers past 60 requests a second, and serves again after Retry-After', async () => {
    const busy = await createAccount();
    const sentAt = Date.now();
    const responses = await Promise.all(Array.from({ length: BURST }, () => api(busy, 'GET', '/tags', { retryThrottled: false })));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);

    const accepted = responses.find((response) => response.status === 200)!;
    expect(accepted.headers.get('ratelimit-limit')).toBe('60');
    expect(accepted.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    // The X- names the official CLI reads carry the same limit and remaining budget; the reset is its instant (below).
    for (const field of ['limit', 'remaining']) {
      expect(accepted.headers.get(`x-ratelimit-${field}`)).toBe(accepted.headers.get(`ratelimit-${field}`));
    }

    const throttled = responses.find((response) => response.status === 429)!;
    const retryAfter = throttled.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(throttled.headers.get('ratelimit-limit')).toBe('60');
    expect(throttled.headers.get('ratelimit-remaining')).toBe('0');
    expect(throttled.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(throttled.headers.get('x-ratelimit-limit')).toBe('60');
    expect(throttled.headers.get('x-ratelimit-remaining')).toBe('0');
    // The reset's instant in epoch seconds, the official clients' reading: after the burst was sent, and no later
    // than the seconds RateLimit-Reset counted when it was answered.
    const resetAt = Number(throttled.headers.get('x-ratelimit-reset'));
    expect(resetAt).toBeGreaterThan(sentAt / 1000);
    expect(resetAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + Number(throttled.headers.get('ratelimit-reset')));
    await expectProblem(throttled, 429);
    await Promise.all(responses.filter((response) => response !== throttled).map((response) => response.arrayBuffer()));

    // Waiting as long as the server asked is exactly what a client does; that wait must suffice.
    await new Promise((done) => setTimeout(done, Number(retryAfter) * 1000));
    expect((await api(busy, 'GET', '/tags', { retryThrottled: false })).status).toBe(200);
  });

  it('throttles one account without affecting another', async () => {
    const busy = await createAccount();
    const calm = await createAccount();
    const burst = await Promise.all(Array.from({ length: BURST }, () => api(busy, 'GET', '/tags', { retryThrottled: false })));
    expect(burst.some((response) => response.status === 429)).toBe(true);
    await Promise.all(burst.map((response) => response.arrayBuffer()));
    expect((await api(calm, 'GET', '/tags', { retryThrottled: false })).status).toBe(200);
  });
});

describe('X-API-Version', () => {
  it('is on successful responses', async () => {
    const response = await api(account, 'GET', '/tags');
    expect(response.headers.get('x-api-version')).toMatch(API_VERSION);
  });

  it('is on error responses', async () => {
    const unauthenticated = await anonymous('/tags');
    expect(unauthenticated.headers.get('x-api-version')).toMatch(API_VERSION);
    const missing = await api(account, 'GET', '/tags/no-such-tag');
    expect(missing.headers.get('x-api-version')).toMatch(API_VERSION);
    const unknownRoute = await fetch(`${server().baseUrl}/no-such-route`);
    expect(unknownRoute.headers.get('x-api-version')).toMatch(API_VERSION);
  });

  it('is the same on every response', async () => {
    const versions = await Promise.all([api(account, 'GET', '/tags'), anonymous('/tags'), fetch(`${server().baseUrl}/health/live`)]).then(
      (responses) => responses.map((response) => response.headers.get('x-api-version')),
    );
    expect(new Set(versions).size).toBe(1);
  });
});

describe('CSV responses', () => {
  const csv = { headers: { Accept: 'text/csv' } };

  it('renders a list as a header line of the JSON field names and one row per object', async () => {
    const json = await expectJson<Record<string, unknown>[]>(await api(account, 'GET', '/tags'), 200);
    const response = await api(account, 'GET', '/tags', csv);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const { header, rows } = parseCsv(await response.text());
    expect([...header].sort()).toEqual([...TAG_FIELDS].sort());
    expect(rows).toHaveLength(json.length);
    const beta = rows.find((row) => row['id'] === 'beta');
    expect(beta?.['name']).toBe('Beta, "quoted"');
  });

  it('renders a single object as a header line and one row', async () => {
    const json = await expectJson<Record<string, unknown>>(await api(account, 'GET', '/tags/onboarding'), 200);
    const response = await api(account, 'GET', '/tags/onboarding', csv);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const { header, rows } = parseCsv(await response.text());
    expect([...header].sort()).toEqual([...TAG_FIELDS].sort());
    expect(rows).toEqual([Object.fromEntries(Object.entries(json).map(([key, value]) => [key, String(value)]))]);
  });

  it('renders a status acknowledgement as status,title', async () => {
    const response = await api(account, 'POST', '/flows/welcome/unpublish', csv);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const lines = (await response.text()).split(/\r?\n/).filter((line) => line !== '');
    expect(lines).toEqual(['status,title', '200,OK']);
  });

  it('answers JSON when no Accept header is sent', async () => {
    const response = await fetch(accountUrl(account, '/tags'), {
      headers: { Authorization: basicAuthorization(account.key, account.secret) },
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(Array.isArray(await response.json())).toBe(true);
  });
});
