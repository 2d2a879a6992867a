import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-program';
import type { CliIo } from './cli-context';

interface Call {
  method: string;
  url: string;
  authorization: string | null;
  body: unknown;
}

describe('guidepost CLI', () => {
  let folder: string;
  let calls: Call[];
  let reply: (call: Call) => { status: number; body: unknown };
  let stdout: string;
  let stderr: string;

  beforeAll(async () => (folder = await mkdtemp(join(tmpdir(), 'guidepost-cli-'))));
  afterAll(() => rm(folder, { recursive: true, force: true }));

  beforeEach(() => {
    calls = [];
    stdout = '';
    stderr = '';
    reply = () => ({ status: 200, body: {} });
    jest.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      const headers = new Headers(init?.headers);
      const call: Call = {
        method: init?.method ?? 'GET',
        url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        authorization: headers.get('authorization'),
        body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      };
      calls.push(call);
      const { status, body } = reply(call);
      return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));
    });
  });

  afterEach(() => jest.restoreAllMocks());

  function run(args: string[], env: NodeJS.ProcessEnv = { GUIDEPOST_ADMIN_TOKEN: 'env-token' }, isTTY = false) {
    const io: CliIo = {
      env,
      stdout: { isTTY, write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    };
    return runCli(args, io);
  }

  async function jsonFile(name: string, value: unknown): Promise<string> {
    const path = join(folder, name);
    await writeFile(path, JSON.stringify(value));
    return path;
  }

  it('refuses to run without an admin token, saying how to give one', async () => {
    expect(await run(['accounts', 'list'], {})).toBe(1);
    expect(stderr).toContain('an admin token is required: pass --token <token> or set GUIDEPOST_ADMIN_TOKEN');
    expect(calls).toHaveLength(0);
  });

  it('takes the URL and token from the environment, options winning over it', async () => {
    await run(['accounts', 'list'], { GUIDEPOST_URL: 'http://env.example:9000/', GUIDEPOST_ADMIN_TOKEN: 'env-token' });
    await run(['--url', 'http://flag.example', 'accounts', 'list', '--token', 'flag-token'], {
      GUIDEPOST_URL: 'http://env.example:9000',
      GUIDEPOST_ADMIN_TOKEN: 'env-token',
    });
    await run(['accounts', 'list']);
    expect(calls.map(({ url, authorization }) => [url, authorization])).toEqual([
      ['http://env.example:9000/admin/v1/accounts', 'Bearer env-token'],
      ['http://flag.example/admin/v1/accounts', 'Bearer flag-token'],
      ['http://127.0.0.1:8080/admin/v1/accounts', 'Bearer env-token'],
    ]);
  });

  it('rejects a URL that is not absolute http(s)', async () => {
    expect(await run(['--url', 'localhost:8080', 'accounts', 'list'])).toBe(1);
    expect(stderr).toContain("--url: 'localhost:8080' is not an absolute http(s) URL");
  });

  it('creates an account and prints the answer as JSON', async () => {
    const account = { id: 'acme', name: 'Acme', created_at: '2025-01-01T00:00:00.000Z' };
    reply = () => ({ status: 201, body: account });
    expect(await run(['accounts', 'create', '--name', 'Acme', '--id', 'acme'])).toBe(0);
    expect(calls[0]).toMatchObject({ method: 'POST', body: { name: 'Acme', id: 'acme' } });
    expect(JSON.parse(stdout)).toEqual(account);
  });

  it('prints a new key with its secret and a ready curl line', async () => {
    reply = () => ({ status: 201, body: { account_id: 'acme', key: 'k1', secret: 's1', created_at: '2025-01-01T00:00:00.000Z' } });
    await run(['keys', 'create', '--account', 'acme']);
    expect(JSON.parse(stdout)).toMatchObject({
      key: 'k1',
      secret: 's1',
      try_it: 'curl -u k1:s1 http://127.0.0.1:8080/v2/accounts/acme/flows',
    });
  });

  it('reports a Problem answer on stderr with exit code 1', async () => {
    reply = () => ({ status: 404, body: { error: true, status: 404, title: 'Not Found', detail: "API key 'k9' was not found" } });
    expect(await run(['keys', 'revoke', '--account', 'acme', '--key', 'k9'])).toBe(1);
    expect(calls[0]).toMatchObject({ method: 'DELETE', url: 'http://127.0.0.1:8080/admin/v1/accounts/acme/api_keys/k9' });
    expect(stderr).toBe("error: admin API answered 404: API key 'k9' was not found\n");
    expect(stdout).toBe('');
  });

  it('upserts content in batches of 500 and prints the total', async () => {
    const records = Array.from({ length: 1201 }, (_, index) => ({ id: `flow-${index}` }));
    reply = (call) => ({ status: 200, body: { upserted: (call.body as unknown[]).length } });
    expect(await run(['content', 'upsert', 'flows', '--account', 'acme', '--file', await jsonFile('flows.json', records)])).toBe(0);
    expect(calls.map((call) => [call.method, call.url, (call.body as unknown[]).length])).toEqual([
      ['PUT', 'http://127.0.0.1:8080/admin/v1/accounts/acme/flows', 500],
      ['PUT', 'http://127.0.0.1:8080/admin/v1/accounts/acme/flows', 500],
      ['PUT', 'http://127.0.0.1:8080/admin/v1/accounts/acme/flows', 201],
    ]);
    expect((calls[2].body as { id: string }[])[0]).toEqual({ id: 'flow-1000' });
    expect(JSON.parse(stdout)).toEqual({ account_id: 'acme', kind: 'flows', records: 1201, batches: 3, upserted: 1201 });
  });

  it('accepts a single object as one record', async () => {
    reply = () => ({ status: 200, body: { upserted: 1 } });
    await run(['content', 'upsert', 'tags', '--account', 'acme', '--file', await jsonFile('tag.json', { id: 't1' })]);
    expect(calls[0].body).toEqual([{ id: 't1' }]);
  });

  it.each(['launchpads', 'banners', 'checklists', 'flows-v2', 'embeds', 'nps'])('upserts %s to their own admin path', async (kind) => {
    reply = () => ({ status: 200, body: { upserted: 1 } });
    const record = { id: 'r1', name: 'R', type: kind, steps: [] };
    expect(await run(['content', 'upsert', kind, '--account', 'acme', '--file', await jsonFile(`${kind}.json`, [record])])).toBe(0);
    expect(calls).toEqual([
      expect.objectContaining({ method: 'PUT', url: `http://127.0.0.1:8080/admin/v1/accounts/acme/${kind}`, body: [record] }),
    ]);
  });

  it('names every content kind in its help', async () => {
    await run(['content', '--help']);
    const help = (stdout + stderr).replace(/\s+/g, ' ');
    expect(help).toContain('flows, pins, mobile, launchpads, banners, checklists, flows-v2, embeds, nps, tags');
  });

  it('names the records of a failed batch and what was already stored', async () => {
    const records = Array.from({ length: 600 }, (_, index) => ({ id: `pin-${index}` }));
    reply = () =>
      calls.length === 1
        ? { status: 200, body: { upserted: 500 } }
        : { status: 400, body: { error: true, status: 400, title: 'Bad Request', detail: '[3].name: must be string' } };
    expect(await run(['content', 'upsert', 'pins', '--account', 'acme', '--file', await jsonFile('pins.json', records)])).toBe(1);
    expect(stderr).toContain('batch 2 of 2 (records 501-600) failed after 500 upserted: admin API answered 400: [3].name: must be string');
  });

  it.each([
    ['an unknown kind', ['content', 'upsert', 'widgets', '--account', 'acme', '--file', 'x.json'], 'widgets'],
    ['a missing file', ['content', 'upsert', 'flows', '--account', 'acme', '--file', '/no/such/file.json'], 'ENOENT'],
  ])('refuses %s before sending anything', async (_case, args, message) => {
    expect(await run(args)).toBe(1);
    expect(stderr).toContain(message);
    expect(calls).toHaveLength(0);
  });

  it('refuses files whose items are not objects, naming the item', async () => {
    const path = await jsonFile('mixed.json', [{ id: 'a' }, 'b']);
    expect(await run(['content', 'upsert', 'flows', '--account', 'acme', '--file', path])).toBe(1);
    expect(stderr).toContain(`--file: item 1 of '${path}' is not a JSON object`);
  });

  it('sets ingestion filtering rules from a file', async () => {
    const rules = { mode: 'allow', event_names: ['signup'] };
    reply = () => ({ status: 200, body: rules });
    await run(['filtering-rules', 'set', '--account', 'acme', '--file', await jsonFile('rules.json', rules)]);
    expect(calls[0]).toMatchObject({
      method: 'PUT',
      url: 'http://127.0.0.1:8080/admin/v1/accounts/acme/ingestion_filtering_rules',
      body: rules,
    });
    expect(JSON.parse(stdout)).toEqual(rules);
  });

  describe('dead letters', () => {
    const deadLetter = (service: string, id: string, failedAt: string) => ({
      id,
      service,
      source: 'consumer',
      topic: 'guidepost.mail.mail-requested.v1',
      group: 'mail.sender',
      message_id: `m-${id}`,
      key: 'job-1',
      reason: 'the SMTP server refused every recipient',
      attempts: 1,
      failed_at: failedAt,
      status: 'waiting',
      replayed_at: null,
      partition: 0,
      offset: id,
    });

    it("lists one service's page with the filters given", async () => {
      const page = { dead_letters: [deadLetter('ingestion', '7', '2026-01-01T00:00:00.000Z')], next_cursor: 'abc' };
      reply = () => ({ status: 200, body: page });
      const args = [
        'dead-letters',
        'list',
        '--service',
        'ingestion',
        '--topic',
        'guidepost.mail.mail-requested.v1',
        '--group',
        'mail.sender',
      ];
      expect(await run([...args, '--status', 'waiting', '--limit', '10', '--cursor', 'xyz'])).toBe(0);
      expect(calls).toEqual([
        {
          method: 'GET',
          url: 'http://127.0.0.1:8080/admin/v1/dead-letters/ingestion?topic=guidepost.mail.mail-requested.v1&group=mail.sender&status=waiting&cursor=xyz&limit=10',
          authorization: 'Bearer env-token',
          body: undefined,
        },
      ]);
      expect(JSON.parse(stdout)).toEqual(page);
    });

    it('lists every service newest first when no service is named, saying when there is more', async () => {
      reply = (call) => {
        const service = new URL(call.url).pathname.split('/').at(-1)!;
        const letters: Record<string, unknown[]> = {
          content: [deadLetter('content', '3', '2026-01-02T00:00:00.000Z')],
          ingestion: [deadLetter('ingestion', '9', '2026-01-03T00:00:00.000Z'), deadLetter('ingestion', '8', '2026-01-01T00:00:00.000Z')],
        };
        return { status: 200, body: { dead_letters: letters[service] ?? [], next_cursor: null } };
      };
      expect(await run(['dead-letters', 'list', '--limit', '2'])).toBe(0);
      expect(calls.map((call) => call.url)).toEqual(
        ['gateway', 'content', 'segment', 'profile', 'ingestion'].map(
          (service) => `http://127.0.0.1:8080/admin/v1/dead-letters/${service}?limit=2`,
        ),
      );
      const printed = JSON.parse(stdout) as { dead_letters: { service: string; id: string }[]; more: boolean };
      expect(printed.dead_letters.map((letter) => `${letter.service}/${letter.id}`)).toEqual(['ingestion/9', 'content/3']);
      expect(printed.more).toBe(true);
    });

    it('names a service that could not answer, after printing the others', async () => {
      reply = (call) =>
        call.url.includes('/segment')
          ? { status: 503, body: { error: true, status: 503, title: 'Service Unavailable', detail: 'the segment service is unavailable' } }
          : { status: 200, body: { dead_letters: [], next_cursor: null } };
      expect(await run(['dead-letters', 'list'])).toBe(1);
      expect(JSON.parse(stdout)).toEqual({ dead_letters: [], more: false });
      expect(stderr).toContain('could not list the dead letters of segment: admin API answered 503: the segment service is unavailable');
    });

    it('shows one dead letter and replays one or all', async () => {
      reply = () => ({ status: 200, body: { replayed: 2, failed: [] } });
      expect(await run(['dead-letters', 'show', 'content', '42'])).toBe(0);
      expect(await run(['dead-letters', 'replay', 'content', '42'])).toBe(0);
      expect(await run(['dead-letters', 'replay', 'segment', '--all', '--topic', 'guidepost.segments.user-ids-submitted.v1'])).toBe(0);
      expect(calls.map(({ method, url, body }) => [method, url, body])).toEqual([
        ['GET', 'http://127.0.0.1:8080/admin/v1/dead-letters/content/42', undefined],
        ['POST', 'http://127.0.0.1:8080/admin/v1/dead-letters/content/42/replay', undefined],
        ['POST', 'http://127.0.0.1:8080/admin/v1/dead-letters/segment/replay', { topic: 'guidepost.segments.user-ids-submitted.v1' }],
      ]);
    });

    it.each([
      ['an unknown service', ['dead-letters', 'show', 'billing', '1'], 'billing'],
      ['a replay of neither an id nor --all', ['dead-letters', 'replay', 'content'], 'replay: give the id of a dead letter, or --all'],
      ['a replay of an id and --all', ['dead-letters', 'replay', 'content', '4', '--all'], 'replay: give an id or --all, not both'],
      ['a filter on a single replay', ['dead-letters', 'replay', 'content', '4', '--topic', 't'], '--topic and --group narrow --all only'],
      ['a cursor without a service', ['dead-letters', 'list', '--cursor', 'abc'], '--cursor: give --service too'],
      ['a limit out of range', ['dead-letters', 'list', '--limit', '0'], '--limit: must be an integer from 1 to 500'],
    ])('refuses %s before sending anything', async (_case, args, message) => {
      expect(await run(args)).toBe(1);
      expect(stderr).toContain(message);
      expect(calls).toHaveLength(0);
    });
  });
});
