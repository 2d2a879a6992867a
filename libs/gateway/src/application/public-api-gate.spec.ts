import { DomainError } from '@guidepost/platform-errors';
import { hashSecret } from '../domain/credentials';
import { ExpiringCache } from '../domain/expiring-cache';
import { FixedWindowRateLimiter } from '../domain/fixed-window-rate-limiter';
import { ApiKeyAuthenticator, API_KEY_CACHE } from './api-key-authenticator';
import { ApiKeyLookup, type ActiveApiKey } from './api-key-lookup.port';
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
    gate = new PublicApiGate(authenticator, new FixedWindowRateLimiter(2, 1000, () => now));
    headers = {};
  });

  const admit = (overrides?: Partial<GateRequest>) =>
    gate.admit(request(overrides), (name, value) => (headers[name] = value));

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
      'X-RateLimit-Reset': '1',
    });
  });

  it('does not check requests outside the public API', async () => {
    await expect(admit({ url: '/admin/v1/accounts', routePattern: '/admin/v1/accounts', accountParam: undefined, authorization: undefined })).resolves.toBeUndefined();
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
    const error = await failure({ url: '/v2/accounts/acme/nothing', routePattern: undefined, accountParam: undefined, authorization: undefined });
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
    expect(headers).toMatchObject({ 'RateLimit-Remaining': '0', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1' });
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
