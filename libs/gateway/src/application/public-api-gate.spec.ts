import { DomainError } from '@guidepost/platform-errors';
import { hashSecret } from '../domain/credentials';
import { ExpiringCache } from '../domain/expiring-cache';
import { FixedWindowRateLimiter } from '../domain/fixed-window-rate-limiter';
import { ApiKeyAuthenticator, API_KEY_CACHE } from './api-key-authenticator';
import { ApiKeyLookup, type ActiveApiKey } from './api-key-lookup.port';
import { AuthenticationThrottle, FAILED_AUTHENTICATION, type AttemptOutcome } from './authentication-throttle';
import { PublicApiGate, type GateRequest } from './public-api-gate';

const KEY = '0123456789abcdef01234567';
const SECRET = 'the-secret';

class FakeApiKeys extends ApiKeyLookup {
  readonly keys = new Map<string, ActiveApiKey>([[KEY, { key: KEY, accountId: 'acme', secretSha256: hashSecret(SECRET) }]]);
  lookups = 0;
  /** Takes lookups and never answers (PostgreSQL frozen). */
  frozen = false;
  /** Fails lookups as an unreachable PostgreSQL does. */
  down = false;

  findActive(key: string): Promise<ActiveApiKey | undefined> {
    this.lookups += 1;
    if (this.frozen) return new Promise(() => undefined);
    if (this.down) return Promise.reject(Object.assign(new Error('the key store is down'), { code: 'ECONNREFUSED' }));
    return Promise.resolve(this.keys.get(key));
  }
}

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
const request = (overrides: Partial<GateRequest> = {}): GateRequest => ({
  url: '/v2/accounts/acme/flows',
  routePattern: '/v2/accounts/:account_id/flows',
  accountParam: 'acme',
  authorization: basic(KEY, SECRET),
  clientAddress: '203.0.113.7',
  ...overrides,
});

describe('PublicApiGate', () => {
  let now: number;
  let apiKeys: FakeApiKeys;
  let authenticator: ApiKeyAuthenticator;
  let gate: PublicApiGate;
  let headers: Record<string, string>;

  beforeEach(() => {
    now = 1_000_000;
    apiKeys = new FakeApiKeys();
    authenticator = new ApiKeyAuthenticator(apiKeys, new ExpiringCache(API_KEY_CACHE, () => now));
    gate = new PublicApiGate(
      authenticator,
      new FixedWindowRateLimiter(2, 1000, () => now),
      new AuthenticationThrottle(undefined, FAILED_AUTHENTICATION, () => now),
    );
    headers = {};
  });

  const admit = (overrides?: Partial<GateRequest>) => gate.admit(request(overrides), (name, value) => (headers[name] = value));

  async function failure(overrides?: Partial<GateRequest>): Promise<DomainError> {
    const error: unknown = await admit(overrides).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
    return error;
  }

  it('admits a valid key on its own account, answering that account, and announces the remaining budget', async () => {
    await expect(admit()).resolves.toBe('acme');
    expect(headers).toEqual({
      'RateLimit-Limit': '2',
      'RateLimit-Remaining': '1',
      'RateLimit-Reset': '1',
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '1',
      // The instant of the reset, in epoch seconds: the window opened at 1,000 s.
      'X-RateLimit-Reset': '1001',
    });
  });

  it('does not check requests outside the public API', async () => {
    await expect(
      admit({ url: '/admin/v1/accounts', routePattern: '/admin/v1/accounts', accountParam: undefined, authorization: undefined }),
    ).resolves.toBeUndefined();
    expect(headers).toEqual({});
  });

  it.each([
    ['no credentials', undefined, 'Authorization header is missing'],
    ['another scheme', 'Bearer token', 'Authorization header is malformed'],
    ['a wrong secret', basic(KEY, 'guess'), 'invalid'],
    ['an unknown key', basic('ffffffffffffffffffffffff', SECRET), 'invalid'],
    ['a key of the wrong form', basic('not-a-key', SECRET), 'invalid'],
  ])('answers %s with 401 and a Basic challenge', async (_case, authorization, detail) => {
    const error = await failure({ authorization });
    expect(error.code).toBe('unauthenticated');
    expect(error.detail).toContain(detail);
    expect(headers['WWW-Authenticate']).toBe('Basic realm="guidepost"');
  });

  it('requires credentials for unknown routes under /v2/ as well', async () => {
    const error = await failure({
      url: '/v2/accounts/acme/nothing',
      routePattern: undefined,
      accountParam: undefined,
      authorization: undefined,
    });
    expect(error.code).toBe('unauthenticated');
  });

  it("refuses a valid key on another account's path with 403 naming that account", async () => {
    const error = await failure({ url: '/v2/accounts/globex/flows', accountParam: 'globex' });
    expect(error.code).toBe('forbidden');
    expect(error.detail).toContain("'globex'");
  });

  it('throttles past the limit with 429 and an integer Retry-After, and admits again in the next window', async () => {
    await admit();
    await admit();
    const error = await failure();
    expect(error.code).toBe('throttled');
    expect(error.retryAfterSeconds).toBe(1);
    expect(headers).toMatchObject({
      'RateLimit-Remaining': '0',
      'X-RateLimit-Remaining': '0',
      'RateLimit-Reset': '1',
      'X-RateLimit-Reset': '1001',
    });
    now += 1000;
    await expect(admit()).resolves.toBe('acme');
  });

  it('caches found keys for a while, then looks them up again', async () => {
    await admit();
    now += 1000;
    await admit();
    expect(apiKeys.lookups).toBe(1);
    now += API_KEY_CACHE.ttlMs;
    await admit();
    expect(apiKeys.lookups).toBe(2);
  });

  it('keeps admitting a key it knows while the key store does not answer, within a second', async () => {
    await admit();
    now += API_KEY_CACHE.ttlMs;
    apiKeys.frozen = true;
    const started = Date.now();
    await expect(admit()).resolves.toBe('acme');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('keeps admitting a key it knows while the key store is down, but never one the store said was revoked', async () => {
    await admit();
    now += API_KEY_CACHE.ttlMs;
    apiKeys.down = true;
    await expect(admit()).resolves.toBe('acme');
    apiKeys.down = false;
    now += API_KEY_CACHE.ttlMs;
    apiKeys.keys.delete(KEY);
    expect((await failure()).code).toBe('unauthenticated');
    apiKeys.down = true;
    await expect(admit()).rejects.toThrow('the key store is down');
  });

  it('never caches unknown keys and never looks up malformed ones', async () => {
    await failure({ authorization: basic('ffffffffffffffffffffffff', SECRET) });
    await failure({ authorization: basic('ffffffffffffffffffffffff', SECRET) });
    await failure({ authorization: basic('x'.repeat(500), SECRET) });
    expect(apiKeys.lookups).toBe(2);
  });

  it('stops accepting a revoked key at once when the cache is told', async () => {
    await admit();
    apiKeys.keys.clear();
    authenticator.forget(KEY);
    expect((await failure()).code).toBe('unauthenticated');
  });
});

describe('PublicApiGate, after repeated failed authentication', () => {
  const { failures, coolDownMs } = FAILED_AUTHENTICATION;
  let now: number;
  let apiKeys: FakeApiKeys;
  let checked: number;
  let outcomes: AttemptOutcome[];
  let gate: PublicApiGate;

  beforeEach(() => {
    now = 1_000_000;
    apiKeys = new FakeApiKeys();
    const authenticator = new ApiKeyAuthenticator(apiKeys, new ExpiringCache(API_KEY_CACHE, () => now));
    checked = 0;
    const authenticate = authenticator.authenticate.bind(authenticator);
    authenticator.authenticate = (key, secret) => {
      checked += 1;
      return authenticate(key, secret);
    };
    outcomes = [];
    const throttle = new AuthenticationThrottle(
      (_credential, outcome) => outcomes.push(outcome),
      FAILED_AUTHENTICATION,
      () => now,
    );
    gate = new PublicApiGate(authenticator, new FixedWindowRateLimiter(10_000, 1000, () => now), throttle);
  });

  /** The error the gate answers with, or the account it admitted. */
  const outcome = (overrides: Partial<GateRequest>): Promise<DomainError | string | undefined> =>
    gate
      .admit(request(overrides), () => undefined)
      .catch((error: unknown) => {
        if (error instanceof DomainError) return error;
        throw error;
      });
  const wrongSecret = (clientAddress: string, key = KEY) => outcome({ clientAddress, authorization: basic(key, 'guess') });
  const rightSecret = (clientAddress: string) => outcome({ clientAddress });
  const codeOf = (answer: DomainError | string | undefined) => (answer instanceof DomainError ? answer.code : answer);

  async function failFrom(clientAddress: string, times: number, key = KEY): Promise<void> {
    for (let attempt = 0; attempt < times; attempt += 1) expect(codeOf(await wrongSecret(clientAddress, key))).toBe('unauthenticated');
  }

  it('refuses an address with 429 and Retry-After before checking its credentials, right ones included', async () => {
    await failFrom('203.0.113.7', failures);
    const before = checked;
    const throttled = await rightSecret('203.0.113.7');
    expect(throttled).toMatchObject({ code: 'throttled', retryAfterSeconds: coolDownMs / 1000 });
    expect((throttled as DomainError).detail).toBe(
      `Too many failed authentication attempts from this client address; retry after ${coolDownMs / 1000} s`,
    );
    expect(codeOf(await outcome({ clientAddress: '203.0.113.7', authorization: undefined }))).toBe('throttled');
    expect(checked).toBe(before);
    expect(outcomes).toEqual([...Array<AttemptOutcome>(failures).fill('refused'), 'throttled', 'throttled']);
  });

  it('counts only failures: successes in between change nothing, and other addresses get through', async () => {
    const otherKey = 'ffffffffffffffffffffffff';
    await failFrom('203.0.113.7', failures - 1, otherKey);
    expect(await rightSecret('203.0.113.7')).toBe('acme');
    expect(await rightSecret('203.0.113.7')).toBe('acme');
    await failFrom('203.0.113.7', 1, otherKey);
    expect(codeOf(await rightSecret('203.0.113.7'))).toBe('throttled');
    expect(await rightSecret('198.51.100.1')).toBe('acme');
  });

  it('counts failures within a minute, and admits again after the cool-down', async () => {
    await failFrom('203.0.113.7', failures - 1);
    now += FAILED_AUTHENTICATION.windowMs;
    await failFrom('203.0.113.7', failures - 1);
    expect(await rightSecret('203.0.113.7')).toBe('acme');
    await failFrom('203.0.113.7', 1);
    now += coolDownMs - 1;
    expect(await rightSecret('203.0.113.7')).toMatchObject({ code: 'throttled', retryAfterSeconds: 1 });
    now += 1;
    expect(await rightSecret('203.0.113.7')).toBe('acme');
  });

  it('does not count a missing or malformed Authorization header, which guesses nothing', async () => {
    for (let attempt = 0; attempt < failures; attempt += 1) {
      expect(codeOf(await outcome({ authorization: undefined }))).toBe('unauthenticated');
      expect(codeOf(await outcome({ authorization: 'Bearer token' }))).toBe('unauthenticated');
    }
    expect(await rightSecret('203.0.113.7')).toBe('acme');
  });

  it('throttles a key failed from many addresses, except from the addresses it succeeded from', async () => {
    expect(await rightSecret('192.0.2.1')).toBe('acme');
    for (let address = 0; address < failures; address += 1) await failFrom(`198.51.100.${address}`, 1);
    const before = checked;
    const throttled = await rightSecret('203.0.113.7');
    expect(throttled).toMatchObject({ code: 'throttled', retryAfterSeconds: coolDownMs / 1000 });
    expect((throttled as DomainError).detail).toBe(
      `Too many failed authentication attempts with this API key; retry after ${coolDownMs / 1000} s`,
    );
    expect(checked).toBe(before);
    expect(await rightSecret('192.0.2.1')).toBe('acme');
    now += coolDownMs;
    expect(await rightSecret('203.0.113.7')).toBe('acme');
  });

  it('answers an unknown key as a known one, so the 429 tells nothing of which keys exist', async () => {
    const unknown = 'ffffffffffffffffffffffff';
    for (let address = 0; address < failures; address += 1) await failFrom(`198.51.100.${address}`, 1, unknown);
    expect((await wrongSecret('203.0.113.7', unknown)) as DomainError).toMatchObject({
      code: 'throttled',
      retryAfterSeconds: coolDownMs / 1000,
    });
    expect(await rightSecret('203.0.113.7')).toBe('acme');
  });
});
