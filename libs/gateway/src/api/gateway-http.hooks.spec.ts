import Fastify, { type FastifyInstance } from 'fastify';
import { problemOf } from '@guidepost/platform-http';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { ApiKeyLookup, type ActiveApiKey } from '../application/api-key-lookup.port';
import { PublicApiGate } from '../application/public-api-gate';
import { hashSecret } from '../domain/credentials';
import { FixedWindowRateLimiter } from '../domain/fixed-window-rate-limiter';
import { GatewayHttpHooks } from './gateway-http.hooks';

const KEY = '0123456789abcdef01234567';
const SECRET = 'the-secret';
const AUTHORIZATION = `Basic ${Buffer.from(`${KEY}:${SECRET}`).toString('base64')}`;

class OneKey extends ApiKeyLookup {
  findActive(key: string): Promise<ActiveApiKey | undefined> {
    return Promise.resolve(key === KEY ? { key, accountId: 'acme', secretSha256: hashSecret(SECRET) } : undefined);
  }
}

/** The hook inside a real Fastify instance whose error handler maps errors the way the platform does. */
describe('GatewayHttpHooks', () => {
  let fastify: FastifyInstance;

  beforeEach(async () => {
    fastify = Fastify();
    new GatewayHttpHooks(new PublicApiGate(new ApiKeyAuthenticator(new OneKey()), new FixedWindowRateLimiter(2))).install(fastify);
    fastify.setErrorHandler((error, _request, reply) => {
      const problem = problemOf(error, { bodyLimitBytes: 1024, fileLimitBytes: 1024 });
      return reply.code(problem.status).headers(problem.headers).send(problem.body);
    });
    fastify.get('/v2/accounts/:account_id/flows', (request) => ({ reached: request.params }));
    fastify.get('/health', () => ({ status: 'ok' }));
    await fastify.ready();
  });

  afterEach(() => fastify.close());

  it('lets an authenticated request through with the RateLimit and X-RateLimit headers', async () => {
    const response = await fastify.inject({ url: '/v2/accounts/acme/flows', headers: { authorization: AUTHORIZATION } });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'ratelimit-limit': '2',
      'ratelimit-remaining': '1',
      'ratelimit-reset': '1',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': '1',
    });
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
    expect(response.headers).toMatchObject({ 'retry-after': '1', 'ratelimit-remaining': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' });
  });

  it('leaves routes outside the public API alone', async () => {
    expect((await fastify.inject({ url: '/health' })).statusCode).toBe(200);
  });
});
