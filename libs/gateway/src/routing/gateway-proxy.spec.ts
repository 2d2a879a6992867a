import { createHash } from 'node:crypto';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type AppConfig, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { AccountStatements, configureHttpServer, fastifyAdapterOptions, PlatformHttpModule } from '@guidepost/platform-http';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { GatewayHttpHooks } from '../api/gateway-http.hooks';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { AuthenticationThrottle } from '../application/authentication-throttle';
import { ApiKeyLookup, type ActiveApiKey } from '../application/api-key-lookup.port';
import { PublicApiGate } from '../application/public-api-gate';
import { hashSecret } from '../domain/credentials';
import { FixedWindowRateLimiter } from '../domain/fixed-window-rate-limiter';
import { GatewayProxy } from './gateway-proxy';

const TOKEN = 'internal-token-for-tests-0123456789abcdef';
const ADMIN = 'Bearer admin-token-for-tests-0123456789abcdef';
const RATE_LIMIT = 50;
const MB = 1024 * 1024;
const KEYS: Record<string, string> = { '0123456789abcdef01234567': 'acme', fedcba9876543210fedcba98: 'busy' };
const SECRET = 'the-secret';

function basic(accountId: string): string {
  const key = Object.keys(KEYS).find((candidate) => KEYS[candidate] === accountId)!;
  return `Basic ${Buffer.from(`${key}:${SECRET}`).toString('base64')}`;
}

class TwoKeys extends ApiKeyLookup {
  findActive(key: string): Promise<ActiveApiKey | undefined> {
    const accountId = KEYS[key];
    return Promise.resolve(accountId === undefined ? undefined : { key, accountId, secretSha256: hashSecret(SECRET) });
  }
}

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly bytes: number;
  readonly sha256: string;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** A real HTTP server standing in for every service: by default it answers what it received. */
class FakeService {
  readonly received: Seen[] = [];
  handle: Handler = (request, reply) => this.echo(request, reply);
  private readonly fastify: FastifyInstance = Fastify();
  private firstBodyBytes = promiseWithResolvers();

  async start(port = 0): Promise<string> {
    this.fastify.removeAllContentTypeParsers();
    this.fastify.addContentTypeParser('*', (_request, body, done) => done(null, body));
    this.fastify.all('/*', async (request, reply) => this.handle(request, reply));
    return this.fastify.listen({ port, host: '127.0.0.1' });
  }

  stop(): Promise<void> {
    return this.fastify.close();
  }

  reset(): void {
    this.received.length = 0;
    this.handle = (request, reply) => this.echo(request, reply);
    this.firstBodyBytes = promiseWithResolvers();
  }

  /** Resolves once a request body starts arriving here. */
  bodyStarted(): Promise<void> {
    return this.firstBodyBytes.promise;
  }

  async echo(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const digest = await digestOf(request.body as Readable | undefined, () => this.firstBodyBytes.resolve());
    const seen = { method: request.method, url: request.url, headers: request.headers, ...digest };
    this.received.push(seen);
    return reply.header('x-service-says', 'hello').send(seen);
  }
}

function promiseWithResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

async function digestOf(
  body: Readable | undefined,
  onFirstBytes: () => void = () => undefined,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of body ?? []) {
    if (bytes === 0) onFirstBytes();
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `megabytes` of NDJSON records, each line different. */
function ndjson(megabytes: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < megabytes * MB; index += 1) {
    const line = `{"user_id":"user-${index}","properties":{"plan":"pro","seen":${index}}}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join(''));
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * A request through node:http, which (unlike fetch) sends any header and lets a test decide when each
 * piece of the body goes out.
 */
function send(
  base: string,
  options: { method?: string; path: string; headers?: OutgoingHttpHeaders; agent?: Agent; localAddress?: string },
  writeBody: (request: ReturnType<typeof httpRequest>) => Promise<void> | void = (request) => void request.end(),
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname,
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        agent: options.agent,
        localAddress: options.localAddress,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    void Promise.resolve(writeBody(request)).catch(reject);
  });
}

function json(answer: Answer): Record<string, unknown> {
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}

@Controller('admin/v1/accounts')
class GatewayOwnController {
  @Get()
  list(): unknown {
    return [{ id: 'served-by-the-gateway' }];
  }
}

/** The gateway host as the distributed shape runs it: the platform's conventions, the gateway's hooks, the proxy. */
async function startGateway(config: AppConfig, metrics = new MetricsRegistry()): Promise<NestFastifyApplication> {
  @Module({ imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule], controllers: [GatewayOwnController] })
  class GatewayHostModule {}
  const app = await NestFactory.create<NestFastifyApplication>(GatewayHostModule, new FastifyAdapter(fastifyAdapterOptions(config)), {
    bodyParser: false,
    logger: false,
  });
  const throttle = new AuthenticationThrottle();
  const hooks = new GatewayHttpHooks(
    new PublicApiGate(new ApiKeyAuthenticator(new TwoKeys()), new FixedWindowRateLimiter(RATE_LIMIT), throttle),
    throttle,
    config,
  );
  await configureHttpServer(app, config, { beforeCredentials: (instance) => hooks.installBeforeCredentials(instance) });
  const fastify = app.getHttpAdapter().getInstance();
  hooks.install(fastify);
  new GatewayProxy(config, metrics).install(fastify);
  await app.listen(0, '127.0.0.1');
  return app;
}

/** `guidepost_gateway_upstream_connect_retries_total` by its `service` label. */
async function connectRetries(metrics: MetricsRegistry): Promise<Map<string, number>> {
  const metric = await metrics.getSingleMetric('guidepost_gateway_upstream_connect_retries_total')?.get();
  return new Map((metric?.values ?? []).map((value) => [String(value.labels['service']), value.value]));
}

function serviceUrls(url: string): Record<string, string> {
  return Object.fromEntries(['CONTENT', 'SEGMENT', 'PROFILE', 'INGESTION'].map((name) => [`GUIDEPOST_${name}_SERVICE_URL`, url]));
}

async function closedPortUrl(): Promise<string> {
  const probe = Fastify();
  const url = await probe.listen({ port: 0, host: '127.0.0.1' });
  await probe.close();
  return url;
}

/** Long enough for the large bodies sent here, short enough to wait for in a test. */
const UPSTREAM_TIMEOUT_MS = 3_000;

describe('GatewayProxy', () => {
  const service = new FakeService();
  let serviceUrl: string;
  let downUrl: string;
  let gateway: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    serviceUrl = await service.start();
    downUrl = await closedPortUrl();
    const config = loadConfig({
      GUIDEPOST_INTERNAL_TOKEN: TOKEN,
      GUIDEPOST_ADMIN_TOKEN: ADMIN.slice('Bearer '.length),
      // Far below the bodies sent here: the gateway must not apply its own parsers' limits to them.
      GUIDEPOST_BODY_LIMIT_BYTES: String(MB),
      GUIDEPOST_CONTENT_SERVICE_URL: serviceUrl,
      GUIDEPOST_PROFILE_SERVICE_URL: serviceUrl,
      GUIDEPOST_INGESTION_SERVICE_URL: serviceUrl,
      GUIDEPOST_SEGMENT_SERVICE_URL: downUrl,
      GUIDEPOST_GATEWAY_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    });
    gateway = await startGateway(config);
    base = await gateway.getUrl();
  });

  afterAll(async () => {
    await gateway.close();
    await service.stop();
  });

  beforeEach(() => service.reset());

  describe('what reaches the service', () => {
    it('forwards method, path and query as sent, with the internal token, the request id and X-Forwarded-*', async () => {
      const path = '/v2/accounts/acme/users/u%201/events?limit=5&q=a%2Fb&range=1..2';
      const answer = await send(base, {
        path,
        headers: { authorization: basic('acme'), 'x-request-id': 'req-123', 'x-guidepost-internal-token': 'forged' },
      });
      expect(answer.status).toBe(200);
      const [seen] = service.received;
      expect(seen).toMatchObject({ method: 'GET', url: path });
      expect(seen.headers).toMatchObject({
        'x-guidepost-internal-token': TOKEN,
        'x-request-id': 'req-123',
        'x-forwarded-for': '127.0.0.1',
        'x-forwarded-proto': 'http',
        'x-forwarded-host': new URL(base).host,
        'x-guidepost-public-base-url': base,
      });
    });

    it("states the base of the client's links, derived from its request, replacing any the client stated", async () => {
      await send(base, {
        path: '/v2/accounts/acme/flows',
        headers: { authorization: basic('acme'), host: 'api.example.test:8443', 'x-guidepost-public-base-url': 'https://evil.test' },
      });
      await send(base, {
        path: '/admin/v1/accounts/acme/flows',
        headers: { authorization: ADMIN, 'x-forwarded-host': 'public.example.com', 'x-forwarded-proto': 'https' },
      });
      expect(service.received.map((seen) => seen.headers['x-guidepost-public-base-url'])).toEqual([
        'http://api.example.test:8443',
        'https://public.example.com',
      ]);
    });

    it('states the account whose key it checked, replacing any statement the client made', async () => {
      const forged = new AccountStatements(TOKEN).state('busy');
      await send(base, {
        path: '/v2/accounts/acme/flows',
        headers: { authorization: basic('acme'), 'x-guidepost-authenticated-account': forged },
      });
      expect(new AccountStatements(TOKEN).statedAccount(service.received[0].headers)).toBe('acme');
    });

    it('states no account on the admin API, and passes on no statement a client made there', async () => {
      const forged = new AccountStatements(TOKEN).state('acme');
      await send(base, {
        path: '/admin/v1/accounts/acme/flows',
        headers: { authorization: ADMIN, 'x-guidepost-authenticated-account': forged },
      });
      expect(service.received[0].headers).not.toHaveProperty('x-guidepost-authenticated-account');
    });

    it.each([
      [
        'an encoded slash and backslash inside a segment',
        '/v2/accounts/acme/users/a%2Fb%5Cc/profile',
        '/v2/accounts/acme/users/a%2Fb%5Cc/profile',
      ],
      [
        'characters left raw that a URL parser would encode',
        "/v2/accounts/acme/users/a|b{c}'d/profile",
        "/v2/accounts/acme/users/a%7Cb%7Bc%7D'd/profile",
      ],
      ['escapes of characters that need none', '/v2/accounts/%61cme/flows/%66%6c%6F%77', '/v2/accounts/acme/flows/flow'],
      ['a semicolon, which is no delimiter', '/v2/accounts/acme/flows/f;jsessionid=1', '/v2/accounts/acme/flows/f%3Bjsessionid%3D1'],
      ['dots inside a segment', '/v2/accounts/acme/flows/v1.2.3', '/v2/accounts/acme/flows/v1.2.3'],
    ])('forwards a path rebuilt from its decoded segments: %s', async (_case, path, forwarded) => {
      const answer = await send(base, { path: `${path}?q=a%2F..%5C`, headers: { authorization: basic('acme') } });
      expect(answer.status).toBe(200);
      expect(service.received[0].url).toBe(`${forwarded}?q=a%2F..%5C`);
    });

    it('strips the client credentials of the public API, whose keys the gateway has checked', async () => {
      await send(base, { path: '/v2/accounts/acme/flows', headers: { authorization: basic('acme') } });
      expect(service.received[0].headers.authorization).toBeUndefined();
    });

    it('keeps the admin token of the content upserts, which the content service checks', async () => {
      const records = Buffer.from('[{"id":"f1"}]');
      await send(
        base,
        { method: 'PUT', path: '/admin/v1/accounts/acme/flows', headers: { authorization: ADMIN, 'content-type': 'application/json' } },
        (request) => void request.end(records),
      );
      expect(service.received[0]).toMatchObject({ method: 'PUT', url: '/admin/v1/accounts/acme/flows', sha256: sha256(records) });
      expect(service.received[0].headers.authorization).toBe(ADMIN);
    });

    it('propagates the request id it assigned when the client sent none', async () => {
      const answer = await send(base, { path: '/v2/accounts/acme/tags', headers: { authorization: basic('acme') } });
      expect(service.received[0].headers['x-request-id']).toEqual(answer.headers['x-request-id']);
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('drops hop-by-hop headers, including those the Connection header names', async () => {
      await send(base, {
        path: '/v2/accounts/acme/pins/p1',
        headers: {
          authorization: basic('acme'),
          connection: 'keep-alive, x-hop',
          'x-hop': '1',
          'keep-alive': 'timeout=5',
          'x-end-to-end': 'kept',
        },
      });
      expect(service.received[0].headers).toMatchObject({ 'x-end-to-end': 'kept' });
      expect(service.received[0].headers).not.toHaveProperty('x-hop');
      expect(service.received[0].headers).not.toHaveProperty('keep-alive');
    });
  });

  describe('request bodies', () => {
    it('streams a multi-megabyte NDJSON body byte for byte, while the client is still sending', async () => {
      const body = ndjson(8);
      const answer = await send(
        base,
        {
          method: 'POST',
          path: '/v2/accounts/acme/import/profiles',
          headers: { authorization: basic('acme'), 'content-type': 'application/ndjson', 'content-length': body.length },
        },
        async (request) => {
          request.write(body.subarray(0, MB));
          // A gateway that buffered the body would forward nothing before the last byte: this would hang.
          await service.bodyStarted();
          request.end(body.subarray(MB));
        },
      );
      expect(answer.status).toBe(200);
      expect(service.received[0]).toMatchObject({ bytes: body.length, sha256: sha256(body) });
      expect(service.received[0].headers).toMatchObject({ 'content-type': 'application/ndjson', 'content-length': String(body.length) });
    }, 30_000);

    it('passes a gzip body on as sent, with its Content-Encoding and length, for the service to decode within its limits', async () => {
      // Decoded, 8 MB of records: far past the gateway's own 1 MB body limit, which must not apply here.
      const body = gzipSync(ndjson(8));
      const headers = {
        authorization: basic('acme'),
        'content-type': 'application/ndjson',
        'content-encoding': 'gzip',
        'content-length': body.length,
      };
      const answer = await send(
        base,
        { method: 'POST', path: '/v2/accounts/acme/import/events', headers },
        (request) => void request.end(body),
      );
      expect(answer.status).toBe(200);
      expect(service.received[0]).toMatchObject({ bytes: body.length, sha256: sha256(body) });
      expect(service.received[0].headers).toMatchObject({ 'content-encoding': 'gzip', 'content-length': String(body.length) });
    });

    it('streams a chunked body without a length', async () => {
      const body = ndjson(3);
      const answer = await send(
        base,
        {
          method: 'PATCH',
          path: '/v2/accounts/acme/groups/g1/users',
          headers: { authorization: basic('acme'), 'content-type': 'application/x-ndjson' },
        },
        (request) => {
          request.write(body.subarray(0, 1000));
          request.end(body.subarray(1000));
        },
      );
      expect(answer.status).toBe(200);
      expect(service.received[0]).toMatchObject({ method: 'PATCH', bytes: body.length, sha256: sha256(body) });
    }, 30_000);

    it('streams a multipart upload sent with Expect: 100-continue, as curl does', async () => {
      const boundary = '----guidepost-test-boundary';
      const file = Buffer.concat([
        Buffer.from('user_id,plan\n'),
        ...Array.from({ length: 100_000 }, (_unused, index) => Buffer.from(`user-${index},pro\n`)),
      ]);
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="users.csv"\r\nContent-Type: text/csv\r\n\r\n`),
        file,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const answer = await send(
        base,
        {
          method: 'POST',
          path: '/v2/accounts/acme/import/groups',
          headers: {
            authorization: basic('acme'),
            'content-type': `multipart/mixed; boundary=${boundary}`,
            'content-length': body.length,
            expect: '100-continue',
          },
        },
        (request) => void request.once('continue', () => request.end(body)),
      );
      expect(answer.status).toBe(200);
      expect(service.received[0]).toMatchObject({ bytes: body.length, sha256: sha256(body) });
      // Passed on as sent: every service reads multipart/mixed itself.
      expect(service.received[0].headers['content-type']).toBe(`multipart/mixed; boundary=${boundary}`);
      expect(service.received[0].headers).not.toHaveProperty('expect');
    }, 30_000);

    it('abandons the forwarded request when the client goes away before the end of its body', async () => {
      const bodyStarted = promiseWithResolvers();
      const outcome = new Promise<string>((resolve) => {
        service.handle = async (request, reply) => {
          const read = await digestOf(request.body as Readable, () => bodyStarted.resolve()).then(
            () => 'read to the end',
            () => 'aborted',
          );
          resolve(read);
          return reply.send({});
        };
      });
      const { hostname, port } = new URL(base);
      const headers = { authorization: basic('acme'), 'content-type': 'application/ndjson', 'content-length': 4 * MB };
      const request = httpRequest({ hostname, port, method: 'POST', path: '/v2/accounts/acme/import/events', headers });
      request.on('error', () => undefined);
      request.write(ndjson(1));
      await bodyStarted.promise;
      request.destroy();
      await expect(outcome).resolves.toBe('aborted');
    });

    it("passes on the service's own refusal of a body it does not read", async () => {
      service.handle = (_request, reply) =>
        reply.code(413).send({ error: true, status: 413, title: 'Payload Too Large', detail: 'file exceeds the 200 MB limit' });
      const body = ndjson(4);
      const answer = await send(
        base,
        {
          method: 'POST',
          path: '/v2/accounts/acme/import/events',
          headers: { authorization: basic('acme'), 'content-type': 'application/ndjson', 'content-length': body.length },
        },
        (request) => void request.end(body),
      );
      expect(answer.status).toBe(413);
      expect(json(answer)).toMatchObject({ detail: 'file exceeds the 200 MB limit' });
    }, 30_000);

    it('lets a client still uploading read a refusal the service answered early, and keeps serving on its connection', async () => {
      // As the services refuse a body over their limit: after its first bytes, draining the rest.
      service.handle = async (request, reply) => {
        const body = request.body as Readable;
        await new Promise((refused) => body.once('data', refused));
        body.resume();
        return reply.code(413).send({ status: 413, title: 'Payload Too Large', detail: 'the body exceeds the 20 MB limit' });
      };
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const headers = { authorization: basic('acme'), 'content-type': 'application/ndjson', 'content-length': 21 * MB };
      const path = '/v2/accounts/acme/import/events';
      const answer = await send(base, { method: 'POST', path, headers, agent }, async (request) => {
        // Slowly, so that most of the body is still to come when the refusal is back at the gateway.
        for (let sent = 0; sent < 21 * MB; sent += MB / 4) {
          await new Promise((written) => request.write(Buffer.alloc(MB / 4, 'x'), written));
          await new Promise((pause) => setTimeout(pause, 5));
        }
        request.end();
      });
      expect(answer.status).toBe(413);
      expect(json(answer)).toMatchObject({ detail: 'the body exceeds the 20 MB limit' });
      service.reset();
      expect((await send(base, { path: '/v2/accounts/acme/tags', headers: { authorization: basic('acme') }, agent })).status).toBe(200);
      agent.destroy();
    }, 60_000);
  });

  describe('answers', () => {
    it("passes the service's status, headers and body through, with the gateway's RateLimit headers", async () => {
      service.handle = (_request, reply) =>
        reply.code(202).header('x-service-says', 'accepted').send({ status: 202, title: 'Accepted', job_id: 'j1' });
      const answer = await send(
        base,
        {
          method: 'POST',
          path: '/v2/accounts/acme/export/events',
          headers: { authorization: basic('acme'), 'content-type': 'application/json' },
        },
        (request) => void request.end('{"range":{}}'),
      );
      expect(answer.status).toBe(202);
      expect(json(answer)).toEqual({ status: 202, title: 'Accepted', job_id: 'j1' });
      expect(answer.headers).toMatchObject({
        'x-service-says': 'accepted',
        'ratelimit-limit': String(RATE_LIMIT),
        'content-type': 'application/json; charset=utf-8',
      });
    });

    it('carries X-Content-Type-Options and Cache-Control once, whether the service set them or not', async () => {
      const safe = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
      service.handle = (_request, reply) => reply.headers(safe).send({ stamped: true });
      const stamped = await send(base, { path: '/v2/accounts/acme/tags', headers: { authorization: basic('acme') } });
      service.handle = (_request, reply) => reply.send({ stamped: false });
      const bare = await send(base, { path: '/v2/accounts/acme/tags', headers: { authorization: basic('acme') } });
      for (const answer of [stamped, bare]) expect(answer.headers).toMatchObject(safe);
    });

    it('streams a large answer: the client reads its start before the service has written its end', async () => {
      const chunk = Buffer.alloc(MB, 'failure,line\n');
      const chunks = 64;
      const clientGotBytes = promiseWithResolvers();
      service.handle = (_request, reply) => {
        async function* failures(): AsyncGenerator<Buffer> {
          yield chunk;
          // A gateway that buffered the answer would pass nothing on before the end: this would hang.
          await clientGotBytes.promise;
          for (let index = 1; index < chunks; index += 1) yield chunk;
        }
        return reply.type('text/csv').send(Readable.from(failures()));
      };
      const response = await fetch(`${base}/v2/accounts/acme/jobs/j1/failures`, {
        headers: { authorization: basic('acme'), accept: 'text/csv' },
      });
      expect(response.status).toBe(200);
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const piece of response.body!) {
        clientGotBytes.resolve();
        hash.update(piece);
        bytes += piece.length;
      }
      expect(bytes).toBe(chunks * MB);
      expect(hash.digest('hex')).toBe(sha256(Buffer.concat(Array.from({ length: chunks }, () => chunk))));
    }, 60_000);
  });

  describe('the gateway checks first', () => {
    it('answers 401 without forwarding, even to an upload', async () => {
      const body = ndjson(2);
      const answer = await send(
        base,
        {
          method: 'POST',
          path: '/v2/accounts/acme/import/events',
          headers: { 'content-type': 'application/ndjson', 'content-length': body.length },
        },
        (request) => void request.end(body),
      );
      expect(answer.status).toBe(401);
      expect(json(answer)).toMatchObject({ error: true, status: 401, title: 'Unauthorized' });
      expect(service.received).toHaveLength(0);
    });

    it('answers an admin request without the admin token with 401 before its body arrives, without forwarding', async () => {
      const answer = await send(
        base,
        {
          method: 'PUT',
          path: '/admin/v1/accounts/acme/flows',
          headers: { authorization: 'Bearer wrong', 'content-type': 'application/json', 'content-length': 20 * MB },
        },
        // Headers only: the body would follow the answer, so a gateway that read it first would never answer.
        (request) => {
          request.flushHeaders();
          request.on('response', (response) => response.on('end', () => request.destroy()));
        },
      );
      expect(answer.status).toBe(401);
      expect(service.received).toHaveLength(0);
    });

    it("answers 403 for another account's path without forwarding", async () => {
      const answer = await send(base, { path: '/v2/accounts/globex/users/u1/profile', headers: { authorization: basic('acme') } });
      expect(answer.status).toBe(403);
      expect(service.received).toHaveLength(0);
    });

    it('answers 429 with Retry-After once the budget is spent, without forwarding', async () => {
      const answers = await Promise.all(
        Array.from({ length: RATE_LIMIT + 5 }, () =>
          send(base, { path: '/v2/accounts/busy/flows', headers: { authorization: basic('busy') } }),
        ),
      );
      const throttled = answers.filter((answer) => answer.status === 429);
      expect(throttled.length).toBeGreaterThanOrEqual(5);
      expect(throttled[0].headers).toMatchObject({ 'retry-after': expect.any(String), 'ratelimit-remaining': '0' });
      expect(service.received.length).toBe(answers.length - throttled.length);
    });
  });

  describe('failed authentication', () => {
    it('refuses a client throttled on the admin API before the admin token is checked', async () => {
      // From an address of its own: the throttle holds the address for minutes, and the other tests use 127.0.0.1.
      const attacker = { localAddress: '127.0.0.7', path: '/admin/v1/accounts', headers: { authorization: 'Bearer a-wrong-admin-token' } };
      // Ten failures throttle the address (fewer, should other tests' wrong tokens have throttled the token already).
      const statuses: number[] = [];
      while (statuses.length <= 10 && statuses.at(-1) !== 429) statuses.push((await send(base, attacker)).status);
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
      expect((await send(base, attacker)).headers['retry-after']).toMatch(/^\d+$/);
    });
  });

  describe('what stays at the gateway', () => {
    it.each([
      ['its own routes', '/admin/v1/accounts', ADMIN, 200],
      ['unknown public routes', '/v2/accounts/acme/nowhere', basic('acme'), 404],
      ['the internal API of the services', '/internal/v1/accounts/acme/jobs', basic('acme'), 404],
    ])('answers %s itself', async (_case, path, authorization, status) => {
      const answer = await send(base, { path, headers: { authorization } });
      expect(answer.status).toBe(status);
      expect(service.received).toHaveLength(0);
    });

    it.each([
      ['backslashes climbing to another account', '/v2/accounts/acme/segments/x\\..\\..\\..\\busy\\segments', 'backslash'],
      [
        'a backslash that reaches the internal API',
        '/v2/accounts/acme/flows\\..\\..\\..\\..\\internal\\v1\\accounts\\busy\\jobs',
        'backslash',
      ],
      ['dot segments', '/v2/accounts/acme/flows/../../busy/flows', 'dot segment'],
      ['encoded dot segments', '/v2/accounts/acme/flows/%2e%2E/%2E./busy/flows', 'dot segment'],
      ['a single dot segment', '/v2/accounts/acme/./flows', 'dot segment'],
      ['an overlong UTF-8 dot', '/v2/accounts/acme/flows/%C0%AE%C0%AE/%C0%AE%C0%AE/busy/flows', 'UTF-8'],
      ['a doubled slash', '/v2/accounts/acme//flows', 'empty'],
      ['a slash at the end', '/v2/accounts/acme/flows/', 'empty'],
      ['a raw fragment', '/v2/accounts/acme/flows#/../../busy', "'#'"],
    ])('refuses a path spelled with %s, before authentication, sending nothing on', async (_case, path, reason) => {
      for (const authorization of [basic('acme'), undefined]) {
        const answer = await send(base, { path, headers: authorization === undefined ? {} : { authorization } });
        expect(answer.status).toBe(400);
        expect(answer.headers['content-type']).toMatch(/^application\/json/);
        expect(json(answer).detail).toMatch(new RegExp(`^path: .*${reason}`));
      }
      expect(service.received).toHaveLength(0);
    });

    it("refuses a segment that decodes to a path with '..' instead of sending it on", async () => {
      const answer = await send(base, {
        path: '/v2/accounts/acme/flows/..%2F..%2F..%2Finternal',
        headers: { authorization: basic('acme') },
      });
      expect(answer.status).toBe(400);
      expect(json(answer).detail).toBe("path: a segment holds '/..' once decoded, which cannot be forwarded");
      expect(service.received).toHaveLength(0);
    });
  });

  describe('a service that cannot be reached', () => {
    it('is a 503 naming the service', async () => {
      const answer = await send(base, { path: '/v2/accounts/acme/segments', headers: { authorization: basic('acme') } });
      expect(answer.status).toBe(503);
      expect(json(answer)).toEqual({
        error: true,
        status: 503,
        title: 'Service Unavailable',
        detail: 'the segment service is unavailable',
      });
      expect(answer.headers['retry-after']).toBe('5');
    });

    it('is a 503 for a request with a body too, and the gateway keeps serving', async () => {
      const body = ndjson(2);
      const answer = await send(
        base,
        {
          method: 'POST',
          path: '/v2/accounts/acme/segments/s1/add_user_ids',
          headers: { authorization: basic('acme'), 'content-type': 'application/ndjson', 'content-length': body.length },
        },
        (request) => void request.end(body),
      );
      expect(answer.status).toBe(503);
      expect((await send(base, { path: '/v2/accounts/acme/flows', headers: { authorization: basic('acme') } })).status).toBe(200);
    });

    it('is tried again while it refuses connections for a moment (a route lagging behind a rolling update): the client gets its answer', async () => {
      const lateUrl = await closedPortUrl();
      const late = new FakeService();
      const metrics = new MetricsRegistry();
      const lateGateway = await startGateway(
        loadConfig({ GUIDEPOST_INTERNAL_TOKEN: TOKEN, ...serviceUrls(serviceUrl), GUIDEPOST_PROFILE_SERVICE_URL: lateUrl }),
        metrics,
      );
      try {
        const body = Buffer.from('{"user_id":"u1","properties":{"plan":"pro"}}');
        const answering = send(
          await lateGateway.getUrl(),
          {
            method: 'POST',
            path: '/v2/accounts/acme/users/u1/profile',
            headers: { authorization: basic('acme'), 'content-type': 'application/json', 'content-length': body.length },
          },
          (request) => void request.end(body),
        );
        await delay(250);
        await late.start(Number(new URL(lateUrl).port));
        const answer = await answering;
        expect(answer.status).toBe(200);
        expect(json(answer)).toMatchObject({
          method: 'POST',
          url: '/v2/accounts/acme/users/u1/profile',
          bytes: body.length,
          sha256: sha256(body),
        });
        expect(late.received).toHaveLength(1);
        // Counted for the operators, by service: the others (all behind one origin here) tried nothing again.
        const retries = await connectRetries(metrics);
        expect(retries.get('profile')).toBeGreaterThanOrEqual(1);
        expect(retries.get('content,segment,ingestion')).toBe(0);
      } finally {
        await lateGateway.close();
        await late.stop();
      }
    });

    it('is not tried again once the request reached it: a connection cut before the answer is a 503, sent once', async () => {
      let attempts = 0;
      service.handle = (request) => {
        attempts += 1;
        request.raw.socket.destroy();
        return new Promise(() => undefined);
      };
      const answer = await send(
        base,
        {
          method: 'POST',
          path: '/v2/accounts/acme/users/u1/profile',
          headers: { authorization: basic('acme'), 'content-type': 'application/json' },
        },
        (request) => void request.end('{"user_id":"u1"}'),
      );
      expect(answer.status).toBe(503);
      expect(json(answer).detail).toBe('the profile service is unavailable');
      expect(attempts).toBe(1);
    });
  });

  describe('a service that freezes', () => {
    it('is a 504 naming the service once the upstream timeout has passed, not a request held for minutes', async () => {
      service.handle = () => new Promise(() => undefined);
      const started = Date.now();
      const answer = await send(base, { path: '/v2/accounts/acme/flows', headers: { authorization: basic('acme') } });
      expect(answer.status).toBe(504);
      expect(json(answer)).toEqual({
        error: true,
        status: 504,
        title: 'Gateway Timeout',
        detail: `the content service did not answer within ${UPSTREAM_TIMEOUT_MS / 1000} s`,
      });
      expect(Date.now() - started).toBeLessThan(UPSTREAM_TIMEOUT_MS + 2_000);
    });
  });

  describe('install', () => {
    it('names every missing service URL', () => {
      const config = loadConfig({ GUIDEPOST_INTERNAL_TOKEN: TOKEN, GUIDEPOST_CONTENT_SERVICE_URL: serviceUrl });
      expect(() => new GatewayProxy(config, new MetricsRegistry()).install(Fastify())).toThrow(
        'The gateway of the distributed shape routes requests to every service: set GUIDEPOST_SEGMENT_SERVICE_URL, GUIDEPOST_PROFILE_SERVICE_URL, GUIDEPOST_INGESTION_SERVICE_URL',
      );
    });

    it('requires the internal token', () => {
      expect(() => new GatewayProxy(loadConfig(serviceUrls(serviceUrl)), new MetricsRegistry()).install(Fastify())).toThrow(
        'GUIDEPOST_INTERNAL_TOKEN',
      );
    });
  });
});
