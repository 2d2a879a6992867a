import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import {
  accountUrl,
  api,
  basicAuthorization,
  createAccount,
  createApiKey,
  expectJson,
  expectProblem,
  server,
  type TestAccount,
} from './support';

/**
 * Repeated failed authentication is throttled per client address and per credential, for API keys and
 * the admin token alike: 10 failures within a minute, then 429 with `Retry-After` for 5 minutes, before
 * the credentials are checked. The other specs share this server and connect from 127.0.0.1, so every
 * failure here comes from an address of its own in 127.0.0.0/8 (all of it is the loopback interface on
 * Linux): the addresses throttled here are never theirs, and 127.0.0.1, which authenticated with the
 * admin token before any of this, stays exempt from the admin token's own throttle.
 */

const FAILURES = 10;
const COOL_DOWN_SECONDS = 300;

/** A GET from a connection bound to `address`, as a client at that address sends it (fetch cannot choose its address). */
function from(address: string, url: string, authorization: string, headers: Record<string, string> = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { localAddress: address, headers: { authorization, ...headers } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () =>
        resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode, headers: headersOf(answer.headers) })),
      );
      answer.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

function headersOf(headers: NodeJS.Dict<string | string[]>): [string, string][] {
  return Object.entries(headers).flatMap(([name, value]) => [value ?? []].flat().map((one): [string, string] => [name, one]));
}

const madeUpKey = () => randomBytes(12).toString('hex');

async function expectThrottled(response: Response, source: RegExp): Promise<void> {
  await expectProblem(response, 429, source);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(COOL_DOWN_SECONDS - 60);
  expect(retryAfter).toBeLessThanOrEqual(COOL_DOWN_SECONDS);
}

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

it('refuses an address after 10 failed attempts, before its credentials are checked, and trusts no X-Forwarded-For it sends', async () => {
  const flows = accountUrl(account, '/flows');
  for (let attempt = 0; attempt < FAILURES; attempt += 1) {
    // A new made-up key and a new claimed address each time: neither spares the address the count.
    const response = await from('127.0.0.2', flows, basicAuthorization(madeUpKey(), 'guess'), {
      'x-forwarded-for': `203.0.113.${attempt}`,
    });
    await expectProblem(response, 401);
  }
  await expectThrottled(await from('127.0.0.2', flows, basicAuthorization(account.key, account.secret)), /from this client address/);
  expect((await api(account, 'GET', '/flows', { retryThrottled: false })).status).toBe(200);
});

it("throttles a key failed from many addresses, but not for an address that used it, nor the key's 429 for a key that does not exist", async () => {
  const key = await createApiKey(account.id);
  const flows = accountUrl(account, '/flows');
  expect((await from('127.0.0.3', flows, basicAuthorization(key.key, key.secret))).status).toBe(200);
  for (let address = 0; address < FAILURES; address += 1) {
    await expectProblem(await from(`127.0.1.${address}`, flows, basicAuthorization(key.key, 'guess')), 401);
    await expectProblem(await from(`127.0.1.${address}`, flows, basicAuthorization('ffffffffffffffffffffffff', 'guess')), 401);
  }
  await expectThrottled(await from('127.0.1.200', flows, basicAuthorization(key.key, key.secret)), /with this API key/);
  await expectThrottled(await from('127.0.1.200', flows, basicAuthorization('ffffffffffffffffffffffff', 'guess')), /with this API key/);
  expect((await from('127.0.0.3', flows, basicAuthorization(key.key, key.secret))).status).toBe(200);
});

it('throttles the admin token alike, sparing the address the admin API is used from', async () => {
  const { adminUrl, adminToken } = server();
  const accounts = `${adminUrl}/admin/v1/accounts`;
  // Wrong tokens other specs sent (from 127.0.0.1) count against the admin token too, so the throttle may
  // come before this address's tenth failure: every answer is a 401 until the 429.
  const statuses: number[] = [];
  while (statuses.length < FAILURES && statuses.at(-1) !== 429)
    statuses.push((await from('127.0.0.4', accounts, 'Bearer wrong-token')).status);
  expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
  await expectThrottled(await from('127.0.0.4', accounts, `Bearer ${adminToken}`), /from this client address|with this admin token/);
  await expectThrottled(await from('127.0.0.5', accounts, `Bearer ${adminToken}`), /with this admin token/);
  await expectJson(await fetch(accounts, { headers: { authorization: `Bearer ${adminToken}` } }), 200);
});
