import { Controller, Get, Logger, Module, Param, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { configureHttpServer, fastifyAdapterOptions, PlatformHttpModule } from '@guidepost/platform-http';
import { MetricsRegistry, ObservabilityModule, ReadinessProbe, useStructuredLogger } from './index';
import { REDACTED_PATHS, requestIdMixin, rootLoggerOf } from './logging/logger-params';

const config = loadConfig({ GUIDEPOST_LOG_LEVEL: 'silent' });

@Controller('things')
class ThingsController {
  private readonly logger = new Logger('Things');

  @Get(':id')
  thing(@Param('id') id: string): { id: string } {
    this.logger.log(`looked up ${id}`);
    return { id };
  }
}

async function start(module: Type<unknown>): Promise<{ app: NestFastifyApplication; base: string }> {
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(fastifyAdapterOptions(config)), {
    bodyParser: false,
    bufferLogs: true,
  });
  useStructuredLogger(app);
  await configureHttpServer(app, config);
  await app.init();
  await app.listen(0, '127.0.0.1');
  return { app, base: await app.getUrl() };
}

describe('observability', () => {
  it('redacts credentials from log lines', () => {
    const written: string[] = [];
    const logger = pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, { write: (line: string) => written.push(line) });
    logger.info({ req: { headers: { authorization: 'Basic a2V5OnNlY3JldA==' } }, key: { id: 'k1', secret: 's3' }, secret: 's1' });
    expect(written.join('')).not.toMatch(/a2V5OnNlY3JldA==|s3|s1/);
    expect(JSON.parse(written[0])).toMatchObject({ key: { id: 'k1', secret: '[redacted]' }, secret: '[redacted]' });
  });

  describe('without databases', () => {
    @Module({
      imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule, ObservabilityModule],
      controllers: [ThingsController],
    })
    class AppModule {}

    let app: NestFastifyApplication;
    let base: string;
    beforeAll(async () => ({ app, base } = await start(AppModule)));
    afterAll(() => app.close());

    it('reports live and ready', async () => {
      expect((await fetch(`${base}/health/live`)).status).toBe(200);
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ok' });
    });

    it('measures requests by route pattern, never by raw URL', async () => {
      await fetch(`${base}/things/a1`);
      await fetch(`${base}/things/b2`);
      await fetch(`${base}/no/such/path`);
      const scrape = await fetch(`${base}/metrics`);
      expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await scrape.text();
      expect(text).toContain('guidepost_http_request_duration_seconds_count{method="GET",route="/things/:id",status_code="200"} 2');
      expect(text).toContain('guidepost_http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"} 1');
      expect(text).not.toContain('a1');
      expect(text).toContain('process_cpu_user_seconds_total');
    });

    it('logs one line per request with its request id; probes only at debug', async () => {
      const info = jest.spyOn(rootLoggerOf(config), 'info');
      const debug = jest.spyOn(rootLoggerOf(config), 'debug');
      await fetch(`${base}/things/a1`, { headers: { 'x-request-id': 'trace-7' } });
      await fetch(`${base}/no/such/path`);
      await fetch(`${base}/health/live`);
      // The line is written once the response has gone out, which may be just after the client has it.
      for (let wait = 0; wait < 50 && debug.mock.calls.length === 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const lines = info.mock.calls.map(([line]) => line);
      expect(lines).toContainEqual(expect.objectContaining({ reqId: 'trace-7', method: 'GET', url: '/things/a1', statusCode: 200 }));
      expect(lines).toContainEqual(expect.objectContaining({ url: '/no/such/path', statusCode: 404 }));
      expect(lines).not.toContainEqual(expect.objectContaining({ url: '/health/live' }));
      expect(debug.mock.calls.map(([line]) => line)).toContainEqual(expect.objectContaining({ url: '/health/live' }));
      info.mockRestore();
      debug.mockRestore();
    });

    it("gives lines logged while a request is handled that request's id", async () => {
      // What the root logger's mixin adds to each line, taken when the handler logs.
      const lines: object[] = [];
      const info = jest
        .spyOn(rootLoggerOf(config), 'info')
        .mockImplementation((fields: unknown) => void lines.push({ ...(fields as object), ...requestIdMixin() }));
      await fetch(`${base}/things/c3`, { headers: { 'x-request-id': 'trace-8' } });
      info.mockRestore();
      expect(lines).toContainEqual({ context: 'Things', reqId: 'trace-8' });
      expect(requestIdMixin()).toEqual({});
    });

    it('lets other modules register their own metrics', () => {
      const registry = app.get(MetricsRegistry);
      expect(registry.getSingleMetric('guidepost_http_request_duration_seconds')).toBeDefined();
    });
  });

  describe('with a database that does not answer', () => {
    const unreachable = new DataSource({ type: 'postgres', url: 'postgres://127.0.0.1:1/none', schema: 'segment' });

    @Module({
      imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule, ObservabilityModule],
      providers: [{ provide: 'segmentDataSource', useValue: unreachable }],
    })
    class AppModule {}

    let app: NestFastifyApplication;
    let base: string;
    beforeAll(async () => ({ app, base } = await start(AppModule)));
    afterAll(() => app.close());

    it('stays live but is not ready, naming the database', async () => {
      expect((await fetch(`${base}/health/live`)).status).toBe(200);
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({
        error: true,
        status: 503,
        title: 'Service Unavailable',
        detail: expect.stringMatching(/^not ready: database:segment/),
      });
    });
  });

  describe('with readiness probes', () => {
    class Probe extends ReadinessProbe {
      failure: Error | undefined;
      constructor(readonly name: string) {
        super();
      }
      check(): Promise<void> {
        return this.failure ? Promise.reject(this.failure) : Promise.resolve();
      }
    }
    const eventStore = new Probe('event-store');
    const cache = new Probe('cache');

    @Module({
      imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule, ObservabilityModule],
      providers: [
        { provide: 'eventStoreProbe', useValue: eventStore },
        { provide: 'cacheProbe', useValue: cache },
      ],
    })
    class AppModule {}

    let app: NestFastifyApplication;
    let base: string;
    beforeAll(async () => ({ app, base } = await start(AppModule)));
    afterAll(() => app.close());

    it('is ready while every probe answers, and names each one that does not with its reason', async () => {
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      eventStore.failure = new Error('connect ECONNREFUSED');
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ detail: 'not ready: event-store (connect ECONNREFUSED)' });
      eventStore.failure = undefined;
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    });

    it('reports its last readiness answer as guidepost_ready, for the alert on a process that stays unready', async () => {
      const readyGauge = async (): Promise<string | undefined> =>
        (await (await fetch(`${base}/metrics`)).text()).split('\n').find((line) => line.startsWith('guidepost_ready '));
      cache.failure = new Error('timeout');
      await fetch(`${base}/health/ready`);
      expect(await readyGauge()).toBe('guidepost_ready 0');
      cache.failure = undefined;
      await fetch(`${base}/health/ready`);
      expect(await readyGauge()).toBe('guidepost_ready 1');
    });
  });
});
