import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpJobRegistryClient } from './http-job-registry-client';
import { HttpUserProfileDirectory } from './http-user-profile-directory';
import { InternalApiError } from './internal-api-caller';

const TOKEN = 'internal-token-for-tests-0123456789abcdef';
/** Short back-off; an attempt's timeout long enough for a test server on a busy machine (unit specs run in parallel). */
const FAST = { timeoutMs: 5_000, retryDelaysMs: [20, 20, 20] };
/** For the case of a service that never answers: what a timeout looks like, soon. */
const TIMING_OUT = { ...FAST, timeoutMs: 300 };

interface Received {
  readonly method: string;
  readonly url: string;
  readonly token: string | string[] | undefined;
  readonly body: unknown;
}

type Answer = (request: Received, response: ServerResponse) => void;

/** A real HTTP server standing in for the ingestion or profile service. */
class FakeService {
  readonly received: Received[] = [];
  answer: Answer = (_request, response) => respond(response, 500, { detail: 'no answer configured' });
  private readonly server: Server = createServer((request, response) => void this.handle(request, response));

  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += (chunk as Buffer).toString('utf8');
    const received = {
      method: request.method ?? '',
      url: request.url ?? '',
      token: request.headers['x-guidepost-internal-token'],
      body: JSON.parse(text),
    };
    this.received.push(received);
    this.answer(received, response);
  }
}

function respond(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function failureOf(promise: Promise<unknown>): Promise<InternalApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof InternalApiError)) throw new Error(`expected an InternalApiError, got ${String(error)}`);
  return error;
}

describe('internal API clients', () => {
  let service: FakeService;
  let baseUrl: string;

  beforeEach(async () => {
    service = new FakeService();
    baseUrl = await service.start();
  });

  afterEach(() => service.stop());

  describe('HttpJobRegistryClient', () => {
    it('creates the job with the internal token and returns it', async () => {
      service.answer = (_request, response) => respond(response, 201, { id: 'job-1', startedAt: '2025-01-01T00:00:00.000Z' });
      const job = await new HttpJobRegistryClient(`${baseUrl}/`, TOKEN, FAST).createJob({ accountId: 'acme/1', name: 'Delete Profile' });
      expect(job).toEqual({ id: 'job-1', startedAt: '2025-01-01T00:00:00.000Z' });
      expect(service.received).toEqual([
        { method: 'POST', url: '/internal/v1/accounts/acme%2F1/jobs', token: TOKEN, body: { name: 'Delete Profile' } },
      ]);
    });

    it('names the service, the status and the detail when the service refuses, and does not repeat the call', async () => {
      service.answer = (_request, response) =>
        respond(response, 503, { error: true, status: 503, title: 'Service Unavailable', detail: 'database is down' });
      const error = await failureOf(
        new HttpJobRegistryClient(baseUrl, TOKEN, FAST).createJob({ accountId: 'acme', name: 'Export Events' }),
      );
      expect(error).toMatchObject({ service: 'ingestion', status: 503, detail: 'it answered 503 (database is down)' });
      expect(error.message).toBe("the ingestion service could not create a 'Export Events' job: it answered 503 (database is down)");
      expect(service.received).toHaveLength(1);
    });

    it('does not repeat a call that timed out: the job may have been created', async () => {
      service.answer = () => undefined;
      const error = await failureOf(
        new HttpJobRegistryClient(baseUrl, TOKEN, TIMING_OUT).createJob({ accountId: 'acme', name: 'Export Events' }),
      );
      expect(error).toMatchObject({ failure: 'timeout', status: undefined, detail: `no answer within 300 ms from ${baseUrl}` });
      expect(service.received).toHaveLength(1);
    });

    it('repeats a call whose connection was refused, until the service is up', async () => {
      const port = await closedPort();
      // Retries spread over seconds: on a busy machine the late service may take longer than one delay to listen.
      const client = new HttpJobRegistryClient(`http://127.0.0.1:${port}`, TOKEN, { retryDelaysMs: [300, 1_000, 3_000] });
      const created = client.createJob({ accountId: 'acme', name: 'Import Events' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const late = new FakeService();
      late.answer = (_request, response) => respond(response, 201, { id: 'job-2', startedAt: '2025-01-01T00:00:00.000Z' });
      await late.start(port);
      try {
        await expect(created).resolves.toEqual({ id: 'job-2', startedAt: '2025-01-01T00:00:00.000Z' });
        expect(late.received).toHaveLength(1);
      } finally {
        await late.stop();
      }
    });

    it('says where it could not connect once the retries are spent', async () => {
      const port = await closedPort();
      const error = await failureOf(
        new HttpJobRegistryClient(`http://127.0.0.1:${port}`, TOKEN, FAST).createJob({ accountId: 'a', name: 'Import Events' }),
      );
      expect(error).toMatchObject({
        service: 'ingestion',
        failure: 'not-sent',
        detail: `cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`,
      });
    });

    it('refuses an answer that is not a created job', async () => {
      service.answer = (_request, response) => respond(response, 201, { id: 42 });
      const error = await failureOf(
        new HttpJobRegistryClient(baseUrl, TOKEN, FAST).createJob({ accountId: 'acme', name: 'Import Events' }),
      );
      expect(error.detail).toBe('it answered 201 with an unexpected body');
    });

    it('names the missing setting', () => {
      expect(() => new HttpJobRegistryClient(undefined, TOKEN)).toThrow('GUIDEPOST_INGESTION_SERVICE_URL');
      expect(() => new HttpJobRegistryClient(baseUrl, undefined)).toThrow('GUIDEPOST_INTERNAL_TOKEN');
    });
  });

  describe('HttpUserProfileDirectory', () => {
    const profilesOf = (request: Received): Record<string, unknown> => {
      const ids = (request.body as { user_ids: string[] }).user_ids;
      return Object.fromEntries(ids.filter((id) => !id.endsWith('-none')).map((id) => [id, { name: `name of ${id}` }]));
    };

    it('looks profiles up in calls of at most 5000 users and merges the answers', async () => {
      service.answer = (request, response) => respond(response, 200, { profiles: profilesOf(request) });
      const userIds = Array.from({ length: 12_001 }, (_unused, index) => (index === 7 ? 'u7-none' : `u${index}`));
      const profiles = await new HttpUserProfileDirectory(baseUrl, TOKEN, FAST).getProfiles('acme', userIds);
      expect(service.received.map((request) => (request.body as { user_ids: string[] }).user_ids.length)).toEqual([5000, 5000, 2001]);
      expect(
        service.received.every((request) => request.url === '/internal/v1/accounts/acme/user-profiles/lookup' && request.token === TOKEN),
      ).toBe(true);
      expect(profiles.size).toBe(12_000);
      expect(profiles.get('u12000')).toEqual({ name: 'name of u12000' });
      expect(profiles.has('u7-none')).toBe(false);
    });

    it('asks nothing for no users', async () => {
      await expect(new HttpUserProfileDirectory(baseUrl, TOKEN, FAST).getProfiles('acme', [])).resolves.toEqual(new Map());
      expect(service.received).toHaveLength(0);
    });

    it('repeats a lookup the service answered 503, with back-off', async () => {
      service.answer = (request, response) =>
        service.received.length < 3
          ? respond(response, 503, { detail: 'starting' })
          : respond(response, 200, { profiles: profilesOf(request) });
      const profiles = await new HttpUserProfileDirectory(baseUrl, TOKEN, FAST).getProfiles('acme', ['u1']);
      expect(profiles).toEqual(new Map([['u1', { name: 'name of u1' }]]));
      expect(service.received).toHaveLength(3);
    });

    it('gives up after the last retry, naming the service and the last answer', async () => {
      service.answer = (_request, response) => respond(response, 503, { detail: 'starting' });
      const error = await failureOf(new HttpUserProfileDirectory(baseUrl, TOKEN, FAST).getProfiles('acme', ['u1']));
      expect(error.message).toBe('the profile service could not look up user profiles: it answered 503 (starting)');
      expect(service.received).toHaveLength(4);
    });

    it('does not repeat a lookup the service rejected', async () => {
      service.answer = (_request, response) => respond(response, 400, { detail: 'user_ids: must NOT have more than 5000 items' });
      const error = await failureOf(new HttpUserProfileDirectory(baseUrl, TOKEN, FAST).getProfiles('acme', ['u1']));
      expect(error).toMatchObject({ service: 'profile', status: 400 });
      expect(service.received).toHaveLength(1);
    });
  });
});
