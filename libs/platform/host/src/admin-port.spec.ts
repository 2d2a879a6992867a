import { connect } from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { PlatformHttpModule } from '@guidepost/platform-http';
import { ObservabilityModule } from '@guidepost/platform-observability';
import { shutDown } from './graceful-shutdown';
import { adminAddressOf, createHttpApplication, listen } from './http-application';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const config = loadConfig({ GUIDEPOST_LOG_LEVEL: 'silent', GUIDEPOST_ADMIN_TOKEN: ADMIN_TOKEN }).with({ port: 0 });

@Controller('admin/v1/things')
class AdminThingsController {
  @Get()
  list(): { admin: true } {
    return { admin: true };
  }
}

@Controller('v2/things')
class PublicThingsController {
  @Get()
  list(): { public: true } {
    return { public: true };
  }
}

@Module({
  imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule, ObservabilityModule],
  controllers: [AdminThingsController, PublicThingsController],
})
class TestModule {}

interface Ports {
  readonly app: NestFastifyApplication;
  readonly http: number;
  readonly admin: number | undefined;
}

/**
 * The application with (or without) an admin port; `authenticate` stands for the gateway's hooks,
 * which refuse a request without credentials before any route runs.
 */
async function started(adminPort: number | undefined, authenticate = false): Promise<Ports> {
  const app = await createHttpApplication({ module: TestModule }, config, {
    adminPort,
    beforeInit: (created) => {
      if (!authenticate) return;
      created
        .getHttpAdapter()
        .getInstance()
        .addHook('onRequest', (request, _reply, done) => {
          done(
            request.headers.authorization === `Bearer ${ADMIN_TOKEN}`
              ? undefined
              : new DomainError('unauthenticated', 'credentials required'),
          );
        });
    },
  });
  await listen(app, config);
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, http: port, admin: adminAddressOf(app)?.port };
}

async function status(port: number, path: string, init: RequestInit = {}): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...init });
  await response.arrayBuffer();
  return response.status;
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('the admin port (GUIDEPOST_ADMIN_PORT)', () => {
  let running: Ports | undefined;

  afterEach(async () => {
    await running?.app.close();
    running = undefined;
  });

  it('serves the admin API, the metrics and the probes, and nothing of the public API', async () => {
    running = await started(0);
    const admin = running.admin!;
    expect(admin).toBeGreaterThan(0);
    expect(admin).not.toBe(running.http);
    expect(await status(admin, '/admin/v1/things')).toBe(200);
    expect(await status(admin, '/metrics')).toBe(200);
    expect(await status(admin, '/health/live')).toBe(200);
    expect(await status(admin, '/health/ready')).toBe(200);
    expect(await status(admin, '/v2/things')).toBe(404);
    expect(await status(admin, '/no-such-route')).toBe(404);
  });

  it('leaves the HTTP port the public API and the probes: the admin API and the metrics are unknown routes there', async () => {
    running = await started(0);
    const { http } = running;
    expect(await status(http, '/v2/things')).toBe(200);
    expect(await status(http, '/health/live')).toBe(200);
    expect(await status(http, '/health/ready')).toBe(200);
    expect(await status(http, '/metrics')).toBe(404);
    expect(await status(http, '/admin/v1/things')).toBe(404);
    expect(await status(http, '/admin/v1/things?limit=1')).toBe(404);
    // Not the 405 (with `Allow`) of a method the route lacks, which would tell that the route is there.
    expect(await status(http, '/admin/v1/things', { method: 'DELETE' })).toBe(404);
    const answer = await fetch(`http://127.0.0.1:${http}/admin/v1/things`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(await answer.json()).toMatchObject({ status: 404, detail: 'Cannot GET /admin/v1/things' });
  });

  it('refuses before authentication, so that the HTTP port answers an admin route the same with or without credentials', async () => {
    running = await started(0, true);
    const { http } = running;
    expect(await status(http, '/admin/v1/things', { headers: {} })).toBe(404);
    expect(await status(http, '/metrics', { headers: {} })).toBe(404);
    expect(await status(http, '/v2/things', { headers: {} })).toBe(401);
    expect(await status(running.admin!, '/admin/v1/things', { headers: {} })).toBe(401);
  });

  it('closes with the HTTP port when the process stops', async () => {
    running = await started(0);
    const { app, http } = running;
    const admin = running.admin!;
    await shutDown({ app, graceMs: 2_000 }, 'SIGTERM');
    running = undefined;
    expect(await connectionRefused(http)).toBe(true);
    expect(await connectionRefused(admin)).toBe(true);
  });

  it('is not there unless asked for: the HTTP port then serves everything', async () => {
    running = await started(undefined);
    expect(adminAddressOf(running.app)).toBeUndefined();
    expect(await status(running.http, '/admin/v1/things')).toBe(200);
    expect(await status(running.http, '/metrics')).toBe(200);
    expect(await status(running.http, '/v2/things')).toBe(200);
  });
});
