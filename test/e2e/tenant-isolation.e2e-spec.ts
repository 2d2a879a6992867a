import { randomInt } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { api, basicAuthorization, createAccount, expectJson, server, upsert, type TestAccount } from './support';
import { createSegment } from './support-segments';
import { getProfile, patchProfile, uniqueId } from './support-people';

/**
 * An attacker holding account A's key tries every spelling of a path that could lead a router or a
 * proxy to account B's data or to the services' internal API. Whatever the spelling, a request acts on
 * account A or on nothing: B's data is neither read (no answer carries its markers) nor changed.
 * The requests go out through node:http, which sends a path exactly as written (fetch would resolve
 * dot segments and backslashes itself before sending).
 */

interface RawAnswer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/** Sends `path` byte for byte with the account's key, once more after each 429 (the attacker's key has the usual budget). */
async function sendRaw(account: TestAccount, method: string, path: string, json?: unknown): Promise<RawAnswer> {
  for (;;) {
    const answer = await sendOnce(account, method, path, json);
    if (answer.status !== 429) return answer;
    await delay(Number(answer.retryAfter ?? '1') * 1000);
  }
}

function sendOnce(account: TestAccount, method: string, path: string, json: unknown): Promise<RawAnswer> {
  const base = new URL(server().baseUrl);
  const send = base.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { authorization: basicAuthorization(account.key, account.secret) };
  if (json !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const outgoing = send({ hostname: base.hostname, port: base.port, method, path, headers, rejectUnauthorized: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      const retryAfter = response.headers['retry-after'];
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(json === undefined ? undefined : JSON.stringify(json));
  });
}

let attacker: TestAccount;
let victim: TestAccount;
const marker = uniqueId('victim-marker');
const victimUser = uniqueId('victim-user');
let victimSegmentId: string;

beforeAll(async () => {
  [attacker, victim] = await Promise.all([createAccount(), createAccount()]);
  await upsert(victim, 'flows', [{ id: 'victim-flow', name: marker }]);
  await upsert(victim, 'tags', [{ id: 'victim-tag', name: marker }]);
  victimSegmentId = (await createSegment(victim, { name: marker })).id;
  await patchProfile(victim, victimUser, { secret: marker });
});

/** What A's key must never see or change: B's flow, tag, segment and profile, as B's key reads them. */
async function expectVictimUntouched(): Promise<void> {
  for (const path of ['/flows/victim-flow', '/tags/victim-tag', `/segments/${encodeURIComponent(victimSegmentId)}`]) {
    const record = await expectJson<{ name: string }>(await api(victim, 'GET', path), 200);
    expect({ path, name: record.name }).toEqual({ path, name: marker });
  }
  expect(await getProfile(victim, victimUser)).toMatchObject({ secret: marker });
}

/**
 * Ways of climbing from `route` of A (a path below an account that the gateway's router matches and
 * routes to the service owning `target`) up to the root and down to `target` (a path without its
 * leading '/'), with each spelling of '..' and of '/'.
 */
function climbs(route: string, target: string): string[] {
  const base = `/v2/accounts/${attacker.id}/${route}/x`;
  const depth = base.split('/').length - 1;
  const climb = (dots: string, separator: string, start = base): string =>
    `${start}${separator}${`${dots}${separator}`.repeat(depth)}${target.replaceAll('/', separator)}`;
  return [
    // The reported breach: backslashes, which URL parsers read as '/', after a segment of A.
    climb('..', '\\'),
    climb('%2e%2e', '\\'),
    climb('..', '%5C'),
    climb('%2E.', '%5c'),
    // Dot segments, raw, encoded and mixed, with '/' and with encoded separators.
    climb('..', '/'),
    climb('%2e%2e', '/'),
    climb('%2E.', '/'),
    climb('.%2E', '/'),
    climb('..', '%2F'),
    climb('%2e%2e', '%2f'),
    climb('.\\..', '/'),
    // Overlong UTF-8 for '.' and '/' (C0 AE, C0 AF; E0 80 AE), which lenient decoders accept.
    climb('%C0%AE%C0%AE', '/'),
    climb('..', '%C0%AF'),
    climb('%E0%80%AE%E0%80%AE', '/'),
    // Path parameters (';'), doubled slashes, a fragment.
    climb('..;', '/'),
    climb('..', '//'),
    climb('..', '/', `${base};`),
    climb('..', '/', `${base}#`),
    `//${target}`,
    `/${target}`.replace(/\//g, '//'),
  ];
}

/** Spellings of B's own routes: another case, encodings of the account id, a key of A. */
function respellings(path: string): string[] {
  const b = victim.id;
  const encodedB = [...b].map((character) => `%${character.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
  return [
    `/v2/accounts/${b}/${path}`,
    `/v2/accounts/${encodedB}/${path}`,
    `/v2/accounts/${b.toUpperCase()}/${path}`,
    `/V2/ACCOUNTS/${b}/${path}`,
    `/v2/Accounts/${b}/${path}`,
    `/v2/accounts/${b};${attacker.id}/${path}`,
    `/v2/accounts/${attacker.id};/../${b}/${path}`,
    `/%76%32/accounts/${b}/${path}`,
  ];
}

/** B's routes, each as a path under the account (no leading '/'). */
function victimRoutes(): string[] {
  const segment = encodeURIComponent(victimSegmentId);
  return [
    'segments',
    `segments/${segment}`,
    'flows',
    'flows/victim-flow',
    'tags/victim-tag',
    `users/${encodeURIComponent(victimUser)}/profile`,
  ];
}

function expectRefused(method: string, path: string, answer: RawAnswer): void {
  // Never a success, and never any of B's data in the answer, whatever the status.
  const refused = [400, 403, 404, 405].includes(answer.status);
  expect({ method, path, status: answer.status, refused, leaks: answer.body.includes(marker) }).toEqual({
    method,
    path,
    status: answer.status,
    refused: true,
    leaks: false,
  });
}

describe("a key of one account cannot reach another account's data, whatever the path spells", () => {
  it.each(['GET', 'DELETE'])("refuses %s of another account's routes through climbing spellings", async (method) => {
    const paths = victimRoutes().flatMap((route) => climbs(route, `v2/accounts/${victim.id}/${route}`));
    for (const path of paths) expectRefused(method, path, await sendRaw(attacker, method, path));
    await expectVictimUntouched();
  });

  it.each(['GET', 'DELETE'])('refuses %s of other spellings of the account id and of the API prefix', async (method) => {
    for (const path of victimRoutes().flatMap(respellings)) expectRefused(method, path, await sendRaw(attacker, method, path));
    await expectVictimUntouched();
  });

  it("never reaches the services' internal API, even with the bodies it takes", async () => {
    // Each from a route of the service that serves it: jobs are the ingestion service's, profile lookups the profile service's.
    const internal = [
      { route: 'jobs', target: `internal/v1/accounts/${victim.id}/jobs`, json: { name: 'Export Events' } },
      { route: 'users/u/profile', target: `internal/v1/accounts/${victim.id}/user-profiles/lookup`, json: { user_ids: [victimUser] } },
    ];
    for (const { route, target, json } of internal) {
      for (const path of [`/${target}`, ...climbs(route, target)]) expectRefused('POST', path, await sendRaw(attacker, 'POST', path, json));
    }
  });

  it('reaches nothing of the other account through generated spellings (fuzzing the path parameters)', async () => {
    const pieces = [
      '..',
      '.',
      '%2e',
      '%2E%2e',
      '/',
      '\\',
      '%2f',
      '%5C',
      '%C0%AE',
      '%C0%AF',
      ';',
      '//',
      victim.id,
      'segments',
      'flows',
      'v2',
      'accounts',
      '%00',
      '~',
    ];
    const routes = victimRoutes();
    for (let sample = 0; sample < 400; sample += 1) {
      const noise = Array.from({ length: randomInt(1, 12) }, () => pieces[randomInt(pieces.length)]).join('');
      const path = `/v2/accounts/${attacker.id}/${routes[randomInt(routes.length)]}/${noise}${routes[randomInt(routes.length)]}`;
      const method = sample % 2 === 0 ? 'GET' : 'DELETE';
      const answer = await sendRaw(attacker, method, path);
      expect({ method, path, leaks: answer.body.includes(marker), serverError: answer.status >= 500 }).toEqual({
        method,
        path,
        leaks: false,
        serverError: false,
      });
    }
    await expectVictimUntouched();
  });

  it('still serves the requests of the account the key belongs to, and ids holding / and \\ through their encoded form', async () => {
    const odd = uniqueId('a/b\\c');
    await patchProfile(attacker, odd, { plan: 'pro' });
    const answer = await sendRaw(attacker, 'GET', `/v2/accounts/${attacker.id}/users/${encodeURIComponent(odd)}/profile`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ plan: 'pro' });
  });
});
