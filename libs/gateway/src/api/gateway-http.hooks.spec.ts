import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '@guidepost/platform-config';
import { problemOf } from '@guidepost/platform-http';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { ApiKeyLookup, type ActiveApiKey } from '../application/api-key-lookup.port';
import { AuthenticationThrottle, FAILED_AUTHENTICATION } from '../application/authentication-throttle';
import { PublicApiGate } from '../application/public-api-gate';
import { hashSecret } from '../domain/credentials';
import { FixedWindowRateLimiter } from '../domain/fixed-window-rate-limiter';
import { countAttempts } from './authentication-metrics';
import { GatewayHttpHooks } from './gateway-http.hooks';

const KEY = '0123456789abcdef01234567';
const SECRET = 'the-secret';
const AUTHORIZATION = `Basic ${Buffer.from(`${KEY}:${SECRET}`).toString('base64')}`;
const ADMIN_TOKEN = 'the-admin-token';

class OneKey extends ApiKeyLookup {
  findActive(key: string): Promise<ActiveApiKey | undefined> {
    return Promise.resolve(key === KEY ? { key, accountId: 'acme', secretSha256: hashSecret(SECRET) } : undefined);
  }
}

/** The hook inside a real Fastify instance whose error handler maps errors the way the platform does. */
describe('GatewayHttpHooks', () => {
  let fastify: FastifyInstance;
  let metrics: MetricsRegistry;
  /** Requests that reached the admin route, whose handler checks the token as the admin API's guard does. */
  let adminChecks: number;

  async function start(trustedProxyHops = 0): Promise<void> {
    metrics = new MetricsRegistry();
    adminChecks = 0;
    fastify = Fastify();
    const throttle = new AuthenticationThrottle(countAttempts(metrics));
    const config = loadConfig({ GUIDEPOST_TRUSTED_PROXY_HOPS: String(trustedProxyHops) });
    const hooks = new GatewayHttpHooks(
      new PublicApiGate(new ApiKeyAuthenticator(new OneKey()), new FixedWindowRateLimiter(2), throttle),
      throttle,
      config,
    );
    hooks.installBeforeCredentials(fastify);
    hooks.install(fastify);
    fastify.setErrorHandler((error, _request, reply) => {
      const problem = problemOf(error, { bodyLimitBytes: 1024, fileLimitBytes: 1024 });
      return reply.code(problem.status).headers(problem.headers).send(problem.body);
    });
    fastify.get('/v2/accounts/:account_id/flows', (request) => ({ reached: request.params }));
    fastify.get('/admin/v1/accounts', (request, reply) => {
      adminChecks += 1;
      return request.headers.authorization === `Bearer ${ADMIN_TOKEN}` ? [] : reply.code(401).send({ status: 401 });
    });
    fastify.get('/health', () => ({ status: 'ok' }));
    await fastify.ready();
  }

  beforeEach(() => start());

  afterEach(() => fastify.close());

  it('lets an authenticated request through with the RateLimit and X-RateLimit headers', async () => {
    const sentAt = Date.now();
    const response = await fastify.inject({ url: '/v2/accounts/acme/flows', headers: { authorization: AUTHORIZATION } });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'ratelimit-limit': '2',
      'ratelimit-remaining': '1',
      'ratelimit-reset': '1',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
    });
    // The instant of the reset in epoch seconds, as the official clients read it: within the one-second window.
    const resetAt = Number(response.headers['x-ratelimit-reset']);
    expect(resetAt).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000) + 1);
    expect(resetAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
  });

  it('answers 401 with a Basic challenge, for unknown routes under /v2/ too', async () => {
    for (const url of ['/v2/accounts/acme/flows', '/v2/accounts/acme/no-such-route', '/%762/accounts/acme/flows']) {
      const response = await fastify.inject({ url });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Basic realm="guidepost"');
      expect(response.json()).toMatchObject({ error: true, status: 401, title: 'Unauthorized' });
    }
  });

  it("answers 403 for another account's path", async () => {
    const response = await fastify.inject({ url: '/v2/accounts/globex/flows', headers: { authorization: AUTHORIZATION } });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ status: 403, detail: "The API key does not grant access to account 'globex'" });
  });

  it('answers 429 with Retry-After once the budget is spent', async () => {
    const send = () => fastify.inject({ url: '/v2/accounts/acme/flows', headers: { authorization: AUTHORIZATION } });
    await send();
    await send();
    const response = await send();
    expect(response.statusCode).toBe(429);
    expect(response.headers).toMatchObject({
      'retry-after': '1',
      'ratelimit-remaining': '0',
      'x-ratelimit-remaining': '0',
      'ratelimit-reset': '1',
    });
  });

  it('leaves routes outside the public API alone', async () => {
    expect((await fastify.inject({ url: '/health' })).statusCode).toBe(200);
  });

  describe('after repeated failed authentication', () => {
    const adminRequest = (token: string, remoteAddress = '203.0.113.7') =>
      fastify.inject({ url: '/admin/v1/accounts', remoteAddress, headers: { authorization: `Bearer ${token}` } });

    async function failuresCounted(): Promise<Record<string, number>> {
      const { values } = await metrics.getSingleMetric('guidepost_auth_failures_total')!.get();
      return Object.fromEntries(values.map(({ labels, value }) => [`${String(labels['credential'])} ${String(labels['outcome'])}`, value]));
    }

    it('refuses a client address that failed the admin token, before the token is checked, and counts it', async () => {
      expect(await failuresCounted()).toEqual({
        'api_key refused': 0,
        'api_key throttled': 0,
        'admin_token refused': 0,
        'admin_token throttled': 0,
      });
      for (let attempt = 0; attempt < FAILED_AUTHENTICATION.failures; attempt += 1)
        expect((await adminRequest('guess')).statusCode).toBe(401);
      const checks = adminChecks;
      const throttled = await adminRequest(ADMIN_TOKEN);
      expect(throttled.statusCode).toBe(429);
      expect(throttled.headers['retry-after']).toBe(String(FAILED_AUTHENTICATION.coolDownMs / 1000));
      expect(throttled.json()).toMatchObject({
        status: 429,
        detail: 'Too many failed authentication attempts from this client address; retry after 300 s',
      });
      expect(adminChecks).toBe(checks);
      // The public API from that address too: the address is throttled, whatever it presents.
      expect(
        (await fastify.inject({ url: '/v2/accounts/acme/flows', remoteAddress: '203.0.113.7', headers: { authorization: AUTHORIZATION } }))
          .statusCode,
      ).toBe(429);
      expect(await failuresCounted()).toMatchObject({
        'admin_token refused': FAILED_AUTHENTICATION.failures,
        'admin_token throttled': 1,
        'api_key throttled': 1,
      });
    });

    it('throttles the admin token failed from many addresses, except from an address it succeeded from', async () => {
      expect((await adminRequest(ADMIN_TOKEN, '192.0.2.1')).statusCode).toBe(200);
      for (let address = 0; address < FAILED_AUTHENTICATION.failures; address += 1)
        expect((await adminRequest('guess', `198.51.100.${address}`)).statusCode).toBe(401);
      const throttled = await adminRequest(ADMIN_TOKEN, '198.51.100.200');
      expect(throttled.statusCode).toBe(429);
      expect(throttled.json()).toMatchObject({
        detail: 'Too many failed authentication attempts with this admin token; retry after 300 s',
      });
      expect((await adminRequest(ADMIN_TOKEN, '192.0.2.1')).statusCode).toBe(200);
    });

    it('counts the address its trusted proxy appended to X-Forwarded-For, and nothing a client wrote before it', async () => {
      await fastify.close();
      await start(1);
      const viaProxy = (clientWrote: string, token = 'guess') =>
        fastify.inject({
          url: '/admin/v1/accounts',
          remoteAddress: '10.0.0.5',
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `${clientWrote}, 203.0.113.7` },
        });
      // Another client behind the same proxy, known to the token (the token is throttled too below).
      const other = () =>
        fastify.inject({
          url: '/admin/v1/accounts',
          remoteAddress: '10.0.0.5',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': '198.51.100.9' },
        });
      expect((await other()).statusCode).toBe(200);
      for (let attempt = 0; attempt < FAILED_AUTHENTICATION.failures; attempt += 1)
        expect((await viaProxy(`192.0.2.${attempt}`)).statusCode).toBe(401);
      expect((await viaProxy('192.0.2.200', ADMIN_TOKEN)).statusCode).toBe(429);
      expect((await other()).statusCode).toBe(200);
    });
  });
});
