import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdminApiError, AdminClient } from './admin-client';

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

describe('AdminClient', () => {
  let server: Server;
  let baseUrl: string;
  let received: Received[];
  let answer: (response: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization,
          contentType: request.headers['content-type'],
          body,
        });
        answer(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  beforeEach(() => {
    received = [];
    answer = (response) => respond(response, 200, {});
  });

  function respond(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  it('sends the Bearer token and a JSON body, and returns the parsed answer', async () => {
    const account = { id: 'acme', name: 'Acme', created_at: '2025-01-01T00:00:00.000Z' };
    answer = (response) => respond(response, 201, account);
    await expect(new AdminClient(`${baseUrl}/`, 'admin-token').createAccount({ name: 'Acme', id: 'acme' })).resolves.toEqual(account);
    expect(received).toEqual([
      {
        method: 'POST',
        url: '/admin/v1/accounts',
        authorization: 'Bearer admin-token',
        contentType: 'application/json',
        body: '{"name":"Acme","id":"acme"}',
      },
    ]);
  });

  it('sends no body where none is needed and encodes path segments', async () => {
    const client = new AdminClient(baseUrl, 't');
    await client.createApiKey('a b');
    await client.revokeApiKey('acme', 'k/1');
    expect(received.map(({ method, url, body }) => ({ method, url, body }))).toEqual([
      { method: 'POST', url: '/admin/v1/accounts/a%20b/api_keys', body: '' },
      { method: 'DELETE', url: '/admin/v1/accounts/acme/api_keys/k%2F1', body: '' },
    ]);
    expect(received[0].contentType).toBeUndefined();
  });

  it('puts content records and filtering rules where the content service expects them', async () => {
    answer = (response) => respond(response, 200, { upserted: 2 });
    const client = new AdminClient(baseUrl, 't');
    await expect(client.upsertContent('acme', 'pins', [{ id: '1' }, { id: '2' }])).resolves.toEqual({ upserted: 2 });
    await client.setIngestionFilteringRules('acme', { mode: 'deny', event_names: ['noise'] });
    expect(received.map(({ method, url, body }) => ({ method, url, body }))).toEqual([
      { method: 'PUT', url: '/admin/v1/accounts/acme/pins', body: '[{"id":"1"},{"id":"2"}]' },
      { method: 'PUT', url: '/admin/v1/accounts/acme/ingestion_filtering_rules', body: '{"mode":"deny","event_names":["noise"]}' },
    ]);
  });

  it('lists, shows and replays dead letters at the service that keeps them', async () => {
    answer = (response) => respond(response, 200, { dead_letters: [], next_cursor: null });
    const client = new AdminClient(baseUrl, 't');
    await expect(client.listDeadLetters('segment')).resolves.toEqual({ dead_letters: [], next_cursor: null });
    await client.listDeadLetters('ingestion', {
      topic: 'guidepost.mail.mail-requested.v1',
      group: 'mail.sender',
      status: 'waiting',
      limit: 10,
      cursor: 'c/1',
    });
    await client.getDeadLetter('content', '42');
    await client.replayDeadLetter('content', '42');
    await client.replayDeadLetters('profile', { topic: 't1' });
    await client.replayDeadLetters('gateway');
    expect(received.map(({ method, url, body }) => ({ method, url, body }))).toEqual([
      { method: 'GET', url: '/admin/v1/dead-letters/segment', body: '' },
      {
        method: 'GET',
        url: '/admin/v1/dead-letters/ingestion?topic=guidepost.mail.mail-requested.v1&group=mail.sender&status=waiting&cursor=c%2F1&limit=10',
        body: '',
      },
      { method: 'GET', url: '/admin/v1/dead-letters/content/42', body: '' },
      { method: 'POST', url: '/admin/v1/dead-letters/content/42/replay', body: '' },
      { method: 'POST', url: '/admin/v1/dead-letters/profile/replay', body: '{"topic":"t1"}' },
      { method: 'POST', url: '/admin/v1/dead-letters/gateway/replay', body: '{}' },
    ]);
  });

  it('turns a Problem answer into an AdminApiError with its status and detail', async () => {
    answer = (response) => respond(response, 409, { error: true, status: 409, title: 'Conflict', detail: "Account 'acme' already exists" });
    const failure = new AdminClient(baseUrl, 't').createAccount({ name: 'Acme', id: 'acme' });
    await expect(failure).rejects.toBeInstanceOf(AdminApiError);
    await expect(new AdminClient(baseUrl, 't').listAccounts()).rejects.toMatchObject({
      status: 409,
      detail: "Account 'acme' already exists",
    });
  });

  it('keeps the text of an error that is not a Problem', async () => {
    answer = (response) => response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>\n');
    await expect(new AdminClient(baseUrl, 't').listAccounts()).rejects.toMatchObject({ status: 502, detail: '<h1>Bad gateway</h1>' });
  });

  it('says which server could not be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(new AdminClient(`http://127.0.0.1:${port}`, 't').listAccounts()).rejects.toThrow(
      `cannot reach http://127.0.0.1:${port}: ECONNREFUSED`,
    );
  });
});
