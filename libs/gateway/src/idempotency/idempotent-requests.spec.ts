import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type AppConfig, loadConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { configureHttpServer, fastifyAdapterOptions, PlatformHttpModule } from '@guidepost/platform-http';
import { MetricsRegistry } from '@guidepost/platform-observability';
import { GatewayHttpHooks } from '../api/gateway-http.hooks';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { AuthenticationThrottle } from '../application/authentication-throttle';
import { ApiKeyLookup, type ActiveApiKey } from '../application/api-key-lookup.port';
import { PublicApiGate } from '../application/public-api-gate';
import { hashSecret } from '../domain/credentials';
import { FixedWindowRateLimiter } from '../domain/fixed-window-rate-limiter';
import { GatewayProxy } from '../routing/gateway-proxy';
import {
  type ClaimOutcome,
  type ClaimTerms,
  IdempotencyStore,
  type KeyRef,
  type RequestLine,
  type StoredAnswer,
} from './idempotency-store.port';
import { IdempotentRequests } from './idempotent-requests';

const SECRET = 'the-secret';
const KEYS: Record<string, string> = { '0123456789abcdef01234567': 'acme', fedcba9876543210fedcba98: 'globex' };
const TOKEN = 'internal-token-for-tests-0123456789abcdef';
const MB = 1024 * 1024;

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

interface Row {
  line: RequestLine;
  token: string | undefined;
  lockedUntil: number;
  expiresAt: number;
  bodySha256?: Buffer;
  answer?: StoredAnswer;
}

/** The store's rules in memory: one row per account and key, a claim that lapses, an answer that expires. */
class MemoryIdempotencyStore extends IdempotencyStore {
  readonly rows = new Map<string, Row>();
  private tokens = 0;

  claim(ref: KeyRef, line: RequestLine, terms: ClaimTerms): Promise<ClaimOutcome> {
    const id = `${ref.accountId}\n${ref.key}`;
    const now = Date.now();
    const existing = this.rows.get(id);
    const free = existing === undefined || existing.expiresAt <= now || (existing.token !== undefined && existing.lockedUntil <= now);
    if (free) {
      const token = `token-${(this.tokens += 1)}`;
      this.rows.set(id, { line, token, lockedUntil: now + terms.leaseMs, expiresAt: now + terms.ttlSeconds * 1000 });
      return Promise.resolve({ kind: 'claimed', token });
    }
    if (existing.answer === undefined || existing.bodySha256 === undefined)
      return Promise.resolve({ kind: 'running', request: existing.line });
    return Promise.resolve({ kind: 'answered', request: existing.line, bodySha256: existing.bodySha256, answer: existing.answer });
  }

  renew(ref: KeyRef, token: string, leaseMs: number): Promise<boolean> {
    const row = this.rows.get(`${ref.accountId}\n${ref.key}`);
    if (row?.token !== token) return Promise.resolve(false);
    row.lockedUntil = Date.now() + leaseMs;
    return Promise.resolve(true);
  }

  complete(ref: KeyRef, token: string, bodySha256: Buffer, answer: StoredAnswer): Promise<boolean> {
    const row = this.rows.get(`${ref.accountId}\n${ref.key}`);
    if (row?.token !== token) return Promise.resolve(false);
    Object.assign(row, { token: undefined, bodySha256, answer });
    return Promise.resolve(true);
  }

  release(ref: KeyRef, token: string): Promise<void> {
    const id = `${ref.accountId}\n${ref.key}`;
    if (this.rows.get(id)?.token === token) this.rows.delete(id);
    return Promise.resolve();
  }

  deleteExpired(): Promise<number> {
    return Promise.resolve(0);
  }

  /** Where a key stands: running, answered (with the stored status) or absent. */
  state(accountId: string, key: string): string {
    const row = this.rows.get(`${accountId}\n${key}`);
    if (row === undefined) return 'absent';
    return row.answer === undefined ? 'running' : `answered ${row.answer.status}`;
  }
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

interface SendOptions {
  readonly method?: string;
  readonly path: string;
  readonly account?: string;
  readonly key?: string;
  readonly json?: unknown;
  readonly body?: Buffer | string;
  readonly headers?: OutgoingHttpHeaders;
}

/** A request through node:http, which sends any header (fetch refuses some) and any body. */
function send(base: string, options: SendOptions, writeBody?: (request: ReturnType<typeof httpRequest>) => void): Promise<Answer> {
  const { hostname, port } = new URL(base);
  const headers: OutgoingHttpHeaders = { authorization: basic(options.account ?? 'acme'), ...options.headers };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, method: options.method ?? 'POST', path: options.path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    if (writeBody) writeBody(request);
    else request.end(body);
  });
}

function json(answer: Answer): Record<string, unknown> {
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

async function digestOf(body: Readable | undefined): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of body ?? []) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** `megabytes` of NDJSON lines, each different. */
function ndjson(megabytes: number, salt = ''): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < megabytes * MB; index += 1) {
    const line = `{"user_id":"user-${index}${salt}","plan":"pro"}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join(''));
}

/** A promise and the function that resolves it. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (condition()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error('the condition did not come true in time'));
      else setTimeout(check, 10);
    };
    check();
  });
}

/** Sends the first half of an NDJSON body, then breaks the connection. */
function cutUpload(base: string, path: string, key: string): Promise<void> {
  const { hostname, port } = new URL(base);
  const body = ndjson(2);
  return new Promise((resolve) => {
    const request = httpRequest({
      hostname,
      port,
      method: 'POST',
      path,
      headers: {
        authorization: basic('acme'),
        'idempotency-key': key,
        'content-type': 'application/ndjson',
        'content-length': body.length,
      },
    });
    request.on('error', () => resolve());
    request.write(body.subarray(0, body.length / 2), () =>
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 100),
    );
  });
}

/** A host with the platform's conventions and the gateway's hooks (authentication, then idempotency). */
async function startHost(
  config: AppConfig,
  store: IdempotencyStore,
  addRoutes: (fastify: FastifyInstance) => void,
): Promise<NestFastifyApplication> {
  @Module({ imports: [PlatformConfigModule.forRoot(config), PlatformHttpModule] })
  class HostModule {}
  const app = await NestFactory.create<NestFastifyApplication>(HostModule, new FastifyAdapter(fastifyAdapterOptions(config)), {
    bodyParser: false,
    logger: false,
  });
  await configureHttpServer(app, config);
  const fastify = app.getHttpAdapter().getInstance();
  const throttle = new AuthenticationThrottle();
  const gate = new PublicApiGate(new ApiKeyAuthenticator(new TwoKeys()), new FixedWindowRateLimiter(10_000), throttle);
  new GatewayHttpHooks(gate, throttle, config, new IdempotentRequests(store, config)).install(fastify);
  addRoutes(fastify);
  await app.listen(0, '127.0.0.1');
  return app;
}

describe('IdempotentRequests, with handlers in process (the standalone shape)', () => {
  const store = new MemoryIdempotencyStore();
  const runs: Record<string, number> = {};
  let slow = latch();
  let app: NestFastifyApplication;
  let base: string;

  const ran = (name: string): number => (runs[name] = (runs[name] ?? 0) + 1);

  beforeAll(async () => {
    const config = loadConfig({ GUIDEPOST_GATEWAY_UPSTREAM_TIMEOUT_MS: '1000' });
    app = await startHost(config, store, (fastify) => {
      fastify.post('/v2/accounts/:account_id/things', (request, reply) => {
        const run = ran('things');
        return reply.code(201).header('location', `/things/${run}`).send({ run, body: request.body });
      });
      fastify.patch('/v2/accounts/:account_id/things/:id', (request) => ({ run: ran('patch'), body: request.body }));
      fastify.delete('/v2/accounts/:account_id/things/:id', () => ({ run: ran('delete') }));
      fastify.get('/v2/accounts/:account_id/things', () => ({ run: ran('get') }));
      fastify.post('/v2/accounts/:account_id/uploads', async (request) => ({
        run: ran('uploads'),
        ...(await digestOf(request.body as Readable)),
      }));
      fastify.post('/v2/accounts/:account_id/slow', async () => {
        const run = ran('slow');
        await slow.promise;
        return { run };
      });
      fastify.post('/v2/accounts/:account_id/refused', () => {
        ran('refused');
        throw new DomainError('invalid_request', `name: is required (run ${runs['refused']})`);
      });
      fastify.post('/v2/accounts/:account_id/failing', () => {
        ran('failing');
        throw new Error('a defect');
      });
      fastify.post('/v2/accounts/:account_id/big', () => ({ run: ran('big'), filler: 'x'.repeat(2 * MB) }));
      fastify.post('/v2/accounts/:account_id/early', () => {
        // Refuses without reading its (NDJSON) body.
        ran('early');
        throw new DomainError('invalid_request', 'refused before the body');
      });
      fastify.post('/v2/accounts/:account_id/conflicting', (_request, reply) => reply.code(409).send({ run: ran('conflicting') }));
    });
    base = await app.getUrl();
  });

  afterAll(() => app.close());

  beforeEach(() => {
    slow = latch();
  });

  it('runs a request once and answers a retry with the first answer: status, Location, body, Idempotent-Replayed', async () => {
    const first = await send(base, { path: '/v2/accounts/acme/things', key: 'k-create', json: { name: 'a' } });
    const retry = await send(base, { path: '/v2/accounts/acme/things', key: 'k-create', json: { name: 'a' } });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['location']).toBe(first.headers['location']);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(retry.body.equals(first.body)).toBe(true);
    expect(json(retry)).toEqual({ run: json(first)['run'], body: { name: 'a' } });
    // Each answer has its own request id, version and rate-limit headers.
    expect(retry.headers['x-api-version']).toBeDefined();
    expect(retry.headers['ratelimit-limit']).toBeDefined();
    expect(retry.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(store.state('acme', 'k-create')).toBe('answered 201');
  });

  it('replays PATCH and DELETE as well, and ignores the key on a GET', async () => {
    const patch = () => send(base, { method: 'PATCH', path: '/v2/accounts/acme/things/1', key: 'k-patch', json: { plan: 'pro' } });
    const [firstPatch, retriedPatch] = [await patch(), await patch()];
    expect(json(retriedPatch)).toEqual(json(firstPatch));
    expect(retriedPatch.headers['idempotent-replayed']).toBe('true');

    const remove = () => send(base, { method: 'DELETE', path: '/v2/accounts/acme/things/1', key: 'k-delete' });
    expect(json(await remove())).toEqual(json(await remove()));

    const get = () => send(base, { method: 'GET', path: '/v2/accounts/acme/things', key: 'k-get' });
    const [firstGet, secondGet] = [await get(), await get()];
    expect(json(secondGet)['run']).toBe(Number(json(firstGet)['run']) + 1);
    expect(secondGet.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers the same key with another body, path or method with a 422 naming Idempotency-Key', async () => {
    const before = runs['things'] ?? 0;
    await send(base, { path: '/v2/accounts/acme/things', key: 'k-reused', json: { name: 'a' } });
    const otherBody = await send(base, { path: '/v2/accounts/acme/things', key: 'k-reused', json: { name: 'b' } });
    const otherQuery = await send(base, { path: '/v2/accounts/acme/things?dry=1', key: 'k-reused', json: { name: 'a' } });
    await send(base, { method: 'PATCH', path: '/v2/accounts/acme/things/7', key: 'k-method', json: {} });
    const otherMethod = await send(base, { method: 'DELETE', path: '/v2/accounts/acme/things/7', key: 'k-method' });
    for (const answer of [otherBody, otherQuery, otherMethod]) {
      expect(answer.status).toBe(422);
      expect(json(answer)).toMatchObject({
        error: true,
        status: 422,
        title: 'Unprocessable Entity',
        detail: expect.stringMatching(/^Idempotency-Key: /),
      });
    }
    expect(json(otherBody)['detail']).toMatch(/another body/);
    expect(json(otherQuery)['detail']).toMatch(/first used with POST \/v2\/accounts\/acme\/things;/);
    expect(json(otherMethod)['detail']).toMatch(/first used with PATCH \/v2\/accounts\/acme\/things\/7;/);
    expect(runs['things']).toBe(before + 1);
  });

  it('answers a retry while the first request runs with a 409, never running both; then replays', async () => {
    const first = send(base, { path: '/v2/accounts/acme/slow', key: 'k-slow', json: {} });
    await until(() => store.state('acme', 'k-slow') === 'running' && runs['slow'] !== undefined);
    const concurrent = await send(base, { path: '/v2/accounts/acme/slow', key: 'k-slow', json: {} });
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers['retry-after']).toBe('1');
    expect(json(concurrent)['detail']).toMatch(/^Idempotency-Key: .*still being processed/);
    slow.open();
    expect((await first).status).toBe(200);
    const after = await send(base, { path: '/v2/accounts/acme/slow', key: 'k-slow', json: {} });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(runs['slow']).toBe(1);
  });

  it('stores a 4xx answer and replays it', async () => {
    const first = await send(base, { path: '/v2/accounts/acme/refused', key: 'k-refused', json: {} });
    const retry = await send(base, { path: '/v2/accounts/acme/refused', key: 'k-refused', json: {} });
    expect(first.status).toBe(400);
    expect(retry.status).toBe(400);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(json(retry)).toEqual(json(first));
    expect(runs['refused']).toBe(1);
  });

  it.each([
    ['a 5xx', 'failing', 500],
    ['a 409 of the handler itself', 'conflicting', 409],
    ['an answer over 1 MB', 'big', 200],
  ])('releases the key after %s, so the retry runs again', async (_label, route, status) => {
    const before = runs[route] ?? 0;
    const first = await send(base, { path: `/v2/accounts/acme/${route}`, key: `k-${route}`, json: {} });
    const retry = await send(base, { path: `/v2/accounts/acme/${route}`, key: `k-${route}`, json: {} });
    expect([first.status, retry.status]).toEqual([status, status]);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(runs[route]).toBe(before + 2);
    expect(store.state('acme', `k-${route}`)).toBe('absent');
  });

  it('releases the key of a request answered before its body was read', async () => {
    const body = ndjson(2);
    const headers = { 'content-type': 'application/ndjson' };
    const first = await send(base, { path: '/v2/accounts/acme/early', key: 'k-early', body, headers });
    const retry = await send(base, { path: '/v2/accounts/acme/early', key: 'k-early', body, headers });
    expect([first.status, retry.status]).toEqual([400, 400]);
    expect(runs['early']).toBe(2);
    expect(store.state('acme', 'k-early')).toBe('absent');
  });

  it('hashes a streamed body as it passes: the same bytes are replayed, one byte more is a 422', async () => {
    const body = ndjson(5);
    const headers = { 'content-type': 'application/ndjson' };
    const first = await send(base, { path: '/v2/accounts/acme/uploads', key: 'k-upload', body, headers });
    expect(json(first)).toMatchObject({ bytes: body.length, sha256: sha256(body) });
    const retry = await send(base, { path: '/v2/accounts/acme/uploads', key: 'k-upload', body, headers });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(json(retry)).toEqual(json(first));
    const longer = await send(base, {
      path: '/v2/accounts/acme/uploads',
      key: 'k-upload',
      body: Buffer.concat([body, Buffer.from('\n')]),
      headers,
    });
    expect(longer.status).toBe(422);
    expect(runs['uploads']).toBe(1);
  });

  it('releases the key of an upload the client broke off, so its retry runs', async () => {
    await cutUpload(base, '/v2/accounts/acme/uploads', 'k-cut');
    await until(() => store.state('acme', 'k-cut') === 'absent');
    const body = ndjson(2);
    const retry = await send(base, {
      path: '/v2/accounts/acme/uploads',
      key: 'k-cut',
      body,
      headers: { 'content-type': 'application/ndjson' },
    });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(json(retry)).toMatchObject({ bytes: body.length });
  });

  it('keeps keys per account', async () => {
    const acme = await send(base, { path: '/v2/accounts/acme/things', key: 'k-shared', json: { name: 'a' } });
    const globex = await send(base, { path: '/v2/accounts/globex/things', account: 'globex', key: 'k-shared', json: { name: 'b' } });
    expect(globex.status).toBe(201);
    expect(globex.headers['idempotent-replayed']).toBeUndefined();
    expect(json(globex)['run']).not.toBe(json(acme)['run']);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not printable ASCII', 'clé'],
    ['holding a control character', 'a\tb'],
  ])('refuses a key that is %s with a 400 naming the header', async (_label, key) => {
    const before = runs['things'] ?? 0;
    const answer = await send(base, {
      path: '/v2/accounts/acme/things',
      json: {},
      headers: { 'idempotency-key': Buffer.from(key, 'latin1').toString('latin1') },
    });
    expect(answer.status).toBe(400);
    expect(json(answer)['detail']).toMatch(/^Idempotency-Key: must be 1 to 255 printable ASCII characters/);
    expect(runs['things']).toBe(before);
  });

  it('takes a key of 255 printable characters, spaces and symbols included', async () => {
    const key = `${' ~!"#$%&()*+,-./:;<=>?@[\\]^_`{|}'.repeat(8)}`.slice(0, 254) + 'z';
    const first = await send(base, { path: '/v2/accounts/acme/things', key, json: {} });
    const retry = await send(base, { path: '/v2/accounts/acme/things', key, json: {} });
    expect(first.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('checks credentials first: a request refused 401 claims nothing', async () => {
    const answer = await send(base, {
      path: '/v2/accounts/acme/things',
      key: 'k-anonymous',
      json: {},
      headers: { authorization: 'Basic bm9wZTpub3Bl' },
    });
    expect(answer.status).toBe(401);
    expect(store.state('acme', 'k-anonymous')).toBe('absent');
  });

  it('stores the answer of a request whose client went away, so the retry gets it instead of a second run', async () => {
    const gone = new Promise<void>((resolve) => {
      const { hostname, port } = new URL(base);
      const body = JSON.stringify({});
      const request = httpRequest({
        hostname,
        port,
        method: 'POST',
        path: '/v2/accounts/acme/slow',
        headers: {
          authorization: basic('acme'),
          'idempotency-key': 'k-gone',
          'content-type': 'application/json',
          'content-length': body.length,
        },
      });
      request.on('error', () => resolve());
      request.end(body);
      void until(() => runs['slow'] !== undefined && store.state('acme', 'k-gone') === 'running').then(() => {
        request.destroy();
        resolve();
      });
    });
    await gone;
    const ran = runs['slow'];
    slow.open();
    await until(() => store.state('acme', 'k-gone') === 'answered 200');
    const retry = await send(base, { path: '/v2/accounts/acme/slow', key: 'k-gone', json: {} });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(runs['slow']).toBe(ran);
  });
});

describe('IdempotentRequests, with answers streamed from a service (the distributed shape)', () => {
  const store = new MemoryIdempotencyStore();
  const service = Fastify();
  let runs = 0;
  let hold: Promise<void> | undefined;
  let answerWith: ((reply: FastifyReply) => unknown) | undefined;
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    service.removeAllContentTypeParsers();
    service.addContentTypeParser('*', (_request, body, done) => done(null, body));
    service.all('/*', async (request: FastifyRequest, reply: FastifyReply) => {
      runs += 1;
      const run = runs;
      const digest = await digestOf(request.body as Readable | undefined);
      await hold;
      if (answerWith) return answerWith(reply);
      return reply
        .code(202)
        .header('location', `/jobs/job-${run}`)
        .send({ job_id: `job-${run}`, ...digest });
    });
    const serviceUrl = await service.listen({ port: 0, host: '127.0.0.1' });
    const config = loadConfig({
      GUIDEPOST_INTERNAL_TOKEN: TOKEN,
      GUIDEPOST_BODY_LIMIT_BYTES: String(MB),
      GUIDEPOST_CONTENT_SERVICE_URL: serviceUrl,
      GUIDEPOST_SEGMENT_SERVICE_URL: serviceUrl,
      GUIDEPOST_PROFILE_SERVICE_URL: serviceUrl,
      GUIDEPOST_INGESTION_SERVICE_URL: serviceUrl,
    });
    app = await startHost(config, store, (fastify) => new GatewayProxy(config, new MetricsRegistry()).install(fastify));
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app.close();
    await service.close();
  });

  beforeEach(() => {
    hold = undefined;
    answerWith = undefined;
  });

  it('stores the answer the service streamed and replays it without forwarding the retry', async () => {
    const body = ndjson(3);
    const headers = { 'content-type': 'application/ndjson' };
    const first = await send(base, { path: '/v2/accounts/acme/import/profiles', key: 'p-import', body, headers });
    expect(first.status).toBe(202);
    expect(json(first)).toMatchObject({ bytes: body.length, sha256: sha256(body) });
    const before = runs;
    const retry = await send(base, { path: '/v2/accounts/acme/import/profiles', key: 'p-import', body, headers });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['location']).toBe(first.headers['location']);
    expect(json(retry)).toEqual(json(first));
    expect(runs).toBe(before);
    const other = await send(base, { path: '/v2/accounts/acme/import/profiles', key: 'p-import', body: ndjson(3, 'x'), headers });
    expect(other.status).toBe(422);
    expect(runs).toBe(before);
  });

  it('answers a retry while the service still works on the first with a 409', async () => {
    const release = latch();
    hold = release.promise;
    const ranBefore = runs;
    const first = send(base, { path: '/v2/accounts/acme/export/events', key: 'p-export', json: { format: 'json' } });
    // The key is running as soon as the gateway holds it, a moment before the service has the request.
    await until(() => store.state('acme', 'p-export') === 'running' && runs === ranBefore + 1);
    const before = runs;
    const concurrent = await send(base, { path: '/v2/accounts/acme/export/events', key: 'p-export', json: { format: 'json' } });
    expect(concurrent.status).toBe(409);
    release.open();
    expect((await first).status).toBe(202);
    expect(runs).toBe(before);
  });

  it("releases the key after the service's 5xx", async () => {
    answerWith = (reply) => reply.code(503).send({ error: true, status: 503, title: 'Service Unavailable', detail: 'down' });
    const first = await send(base, { path: '/v2/accounts/acme/segments', key: 'p-down', json: { name: 's' } });
    expect(first.status).toBe(503);
    expect(store.state('acme', 'p-down')).toBe('absent');
    answerWith = undefined;
    const retry = await send(base, { path: '/v2/accounts/acme/segments', key: 'p-down', json: { name: 's' } });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('releases the key of an upload the client broke off on its way to the service', async () => {
    await cutUpload(base, '/v2/accounts/acme/import/events', 'p-cut');
    await until(() => store.state('acme', 'p-cut') === 'absent');
  });

  it('passes a streamed answer over 1 MB through whole, and does not store it', async () => {
    const big = Buffer.alloc(3 * MB, 'y');
    answerWith = (reply) => reply.code(200).header('content-type', 'text/plain').send(big);
    const answer = await send(base, { path: '/v2/accounts/acme/segments', key: 'p-big', json: {} });
    expect(answer.status).toBe(200);
    expect(answer.body.equals(big)).toBe(true);
    expect(store.state('acme', 'p-big')).toBe('absent');
  });
});
