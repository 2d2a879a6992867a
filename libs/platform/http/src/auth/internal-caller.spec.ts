import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppConfig, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { AccountStatements, configureHttpServer, fastifyAdapterOptions, InternalCallerHooks, PlatformHttpModule } from '../index';

const TOKEN = 'internal-token-for-tests-0123456789abcdef';
const REQUIRED =
  'x-guidepost-internal-token: an internal credential is required; this service answers only the gateway and the other Guidepost services';

@Controller()
class ServiceController {
  @Get('health/live')
  live(): unknown {
    return { status: 'ok' };
  }

  @Get('health/ready')
  ready(): unknown {
    return { status: 'ok' };
  }

  @Get('metrics')
  metrics(): string {
    return '# metrics';
  }

  @Get('v2/accounts/:account_id/flows')
  flows(): unknown {
    return [];
  }

  @Post('internal/v1/accounts/:account_id/jobs')
  @HttpCode(201)
  createJob(): unknown {
    return { id: 'job-1' };
  }
}

/** A service host on Fastify with the platform's conventions; `withHooks` installs `InternalCallerHooks` as hosts do. */
async function serviceApp(config: AppConfig, withHooks: boolean): Promise<NestFastifyApplication> {
  @Module({ imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule], controllers: [ServiceController] })
  class ServiceModule {}
  const app = await NestFactory.create<NestFastifyApplication>(ServiceModule, new FastifyAdapter(fastifyAdapterOptions(config)), {
    bodyParser: false,
    logger: false,
  });
  await configureHttpServer(app, config);
  if (withHooks) app.get(InternalCallerHooks).install(app.getHttpAdapter().getInstance());
  await app.init();
  return app;
}

describe('internal callers', () => {
  const distributed = loadConfig({ GUIDEPOST_INTERNAL_TOKEN: TOKEN });
  const standalone = loadConfig({});

  describe('InternalCallerHooks (every service host of the distributed shape)', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await serviceApp(distributed, true);
    });

    afterAll(() => app.close());

    it.each([
      ['no token', {}],
      ['a wrong token', { 'x-guidepost-internal-token': `${TOKEN}x` }],
      ['the token twice', { 'x-guidepost-internal-token': [TOKEN, TOKEN] }],
    ])('answers 401 to a caller with %s, for unknown routes too', async (_case, headers) => {
      for (const url of ['/v2/accounts/acme/flows', '/v2/accounts/acme/nowhere', '/internal/v1/accounts/acme/jobs']) {
        const response = await app.inject({ method: url.startsWith('/internal') ? 'POST' : 'GET', url, headers });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ error: true, status: 401, title: 'Unauthorized', detail: REQUIRED });
      }
    });

    it("lets the token holder through to an account's routes when it states that account", async () => {
      const headers = {
        'x-guidepost-internal-token': TOKEN,
        'x-guidepost-authenticated-account': new AccountStatements(TOKEN).state('acme'),
      };
      const response = await app.inject({ url: '/v2/accounts/acme/flows', headers });
      expect(response.statusCode).toBe(200);
    });

    it('states accounts of any spelling, and reads back only what it stated', () => {
      const statements = new AccountStatements(TOKEN);
      for (const accountId of ['acme', 'a.b.c', 'a/b', 'ünï cödé', '%2e%2e', 'x.'.repeat(100)]) {
        expect(statements.statedAccount({ 'x-guidepost-authenticated-account': statements.state(accountId) })).toBe(accountId);
      }
    });

    it.each([
      ['no statement', undefined],
      ['a statement of another account', new AccountStatements(TOKEN).state('globex')],
      ['a statement forged without the token', new AccountStatements('a-guess-at-the-token').state('acme')],
      ['a statement without its proof', 'acme'],
      ['a proof moved onto another account', new AccountStatements(TOKEN).state('globex').replace(/^globex/, 'acme')],
      ['two statements', [new AccountStatements(TOKEN).state('acme'), new AccountStatements(TOKEN).state('acme')]],
    ])("answers 403 to the token holder on an account's routes with %s, known routes or not", async (_case, statement) => {
      const headers: Record<string, string | string[]> = { 'x-guidepost-internal-token': TOKEN };
      if (statement !== undefined) headers['x-guidepost-authenticated-account'] = statement;
      const response = await app.inject({ url: '/v2/accounts/acme/flows', headers });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ status: 403, detail: "The API key does not grant access to account 'acme'" });
    });

    it('needs no statement on the internal API, whose callers are the services themselves', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/internal/v1/accounts/acme/jobs',
        headers: { 'x-guidepost-internal-token': TOKEN },
      });
      expect(response.statusCode).toBe(201);
    });

    it('refuses the internal API to a request the gateway forwarded for a client (one stating an account), whichever account', async () => {
      for (const accountId of ['acme', 'globex']) {
        const headers = {
          'x-guidepost-internal-token': TOKEN,
          'x-guidepost-authenticated-account': new AccountStatements(TOKEN).state(accountId),
        };
        const response = await app.inject({ method: 'POST', url: '/internal/v1/accounts/acme/jobs', headers });
        expect(response.statusCode).toBe(403);
      }
    });

    it('leaves the probes open to the orchestrator and Prometheus', async () => {
      for (const url of ['/health/live', '/health/ready', '/metrics', '/metrics?name=x']) {
        expect((await app.inject({ url })).statusCode).toBe(200);
      }
      expect((await app.inject({ method: 'POST', url: '/metrics' })).statusCode).toBe(401);
    });

    it('refuses to install without a token', () => {
      expect(() => new InternalCallerHooks(standalone).install(app.getHttpAdapter().getInstance())).toThrow(
        'GUIDEPOST_INTERNAL_TOKEN is required',
      );
    });
  });

  describe("the internal API in every shape (`installTokenRoutes`, with every host's conventions)", () => {
    it('requires the token when one is configured', async () => {
      const app = await serviceApp(distributed, false);
      try {
        const refused = await app.inject({ method: 'POST', url: '/internal/v1/accounts/acme/jobs' });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toMatchObject({ detail: REQUIRED });
        const admitted = await app.inject({
          method: 'POST',
          url: '/internal/v1/accounts/acme/jobs',
          headers: { 'x-guidepost-internal-token': TOKEN },
        });
        expect(admitted.statusCode).toBe(201);
      } finally {
        await app.close();
      }
    });

    it('hides the internal API like an unknown route when no token is configured (standalone)', async () => {
      const app = await serviceApp(standalone, false);
      try {
        for (const headers of [{}, { 'x-guidepost-internal-token': TOKEN }]) {
          const internal = await app.inject({ method: 'POST', url: '/internal/v1/accounts/acme/jobs', headers });
          const unknown = await app.inject({ method: 'POST', url: '/internal/v1/accounts/acme/nothing' });
          expect(internal.statusCode).toBe(404);
          expect(internal.json()).toEqual({ ...unknown.json(), detail: 'Cannot POST /internal/v1/accounts/acme/jobs' });
        }
      } finally {
        await app.close();
      }
    });
  });
});
