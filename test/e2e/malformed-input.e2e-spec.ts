import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  accountUrl,
  api,
  basicAuthorization,
  createAccount,
  expectJson,
  expectProblem,
  server,
  waitForJob,
  type ApiInit,
  type ProblemBody,
  type TestAccount,
} from './support';
import { createSegment, segmentPath } from './support-segments';
import { csvBody, getProfile, groupPath, ndjsonBody, STATUS_OK, uniqueId, userPath } from './support-people';

/**
 * Input from outside that is malformed in ways clients (and attackers) do send: deep nesting, numbers
 * JSON parses as Infinity, NUL and lone surrogates, bytes that are not UTF-8, requests Node's parser
 * or the router refuses, methods a path does not take, and multipart uploads as curl and browsers
 * encode them. Every refusal is Problem Details naming what is wrong, never a 500 and never the
 * request echoed back. Requests no HTTP library would send go over a raw socket; the curl uploads are
 * made by curl itself.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount();
});

const json = (text: string): ApiInit => ({ body: text, headers: { 'Content-Type': 'application/json' } });

/** `{"a":[[...]]}`: `levels` arrays and objects inside each other. */
const nestedJson = (levels: number): string => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

/** Bytes with an invalid UTF-8 sequence (`C3 28`) between `before` and `after`. */
const withInvalidUtf8 = (before: string, after: string): Buffer =>
  Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from(after)]);

/** The user has no profile: nothing of a refused write was stored. */
async function expectNoProfile(userId: string): Promise<void> {
  await expectProblem(await api(account, 'GET', userPath(userId, 'profile')), 404);
}

describe('JSON bodies', () => {
  it('answers 5,000 levels of nesting on PATCH profile with 400 naming the 64-level limit', async () => {
    const userId = uniqueId('deep');
    await expectProblem(
      await api(account, 'PATCH', userPath(userId, 'profile'), json(nestedJson(5000))),
      400,
      /nested more than 64 levels/,
    );
    await expectNoProfile(userId);
  });

  it('answers nesting past 64 levels in a tracked event and a segment with 400', async () => {
    const attributes = `{"name":"deep","timestamp":"2024-05-01T09:30:00Z","attributes":${nestedJson(65)}}`;
    await expectProblem(await api(account, 'POST', userPath(uniqueId('deep'), 'events'), json(attributes)), 400, /64 levels/);
    await expectProblem(
      await api(account, 'POST', '/segments', json(`{"name":"deep","description":${nestedJson(100)}}`)),
      400,
      /64 levels/,
    );
  });

  it('answers a number beyond a double (1e400) with 400 naming its JSON path instead of storing null', async () => {
    const userId = uniqueId('huge');
    await expectProblem(await api(account, 'PATCH', userPath(userId, 'profile'), json('{"plan":"pro","n":1e400}')), 400, /^n: .*number/);
    await expectNoProfile(userId);
    const event = '{"name":"huge","timestamp":"2024-05-01T09:30:00Z","attributes":{"n":-1e400}}';
    await expectProblem(await api(account, 'POST', userPath(userId, 'events'), json(event)), 400, /^attributes\.n: .*number/);
  });

  const EVENT = (name: string): string => `{"name":"${name}","timestamp":"2024-05-01T09:30:00Z"}`;

  it.each([
    ['a NUL in an event name', 'POST', (id: string) => userPath(id, 'events'), EVENT(String.raw`a\u0000b`), /^name: .*NUL/],
    ['a lone surrogate in an event name', 'POST', (id: string) => userPath(id, 'events'), EVENT(String.raw`a\ud800`), /^name: .*surrogate/],
    [
      'a NUL in a profile key',
      'PATCH',
      (id: string) => userPath(id, 'profile'),
      String.raw`{"address":{"ci\u0000ty":"Lyon"}}`,
      /^address\.ci\\u0000ty: .*NUL/,
    ],
    [
      'a lone surrogate in a profile value',
      'PATCH',
      (id: string) => userPath(id, 'profile'),
      String.raw`{"tags":["ok","\udc00"]}`,
      /^tags\.1: .*surrogate/,
    ],
    ['a NUL in a segment name', 'POST', () => '/segments', String.raw`{"name":"a\u0000b"}`, /^name: .*NUL/],
    [
      'a lone surrogate in a list of user ids',
      'POST',
      (id: string) => groupPath(id, 'users'),
      String.raw`{"user_ids":["\ud83d"]}`,
      /^user_ids[.[]0\]?: .*surrogate/,
    ],
  ] as const)('answers %s with 400 naming the JSON path', async (_case, method, pathOf, body, detail) => {
    const id = uniqueId('text');
    await expectProblem(await api(account, method, pathOf(id), json(body)), 400, detail);
    if (method === 'PATCH') await expectNoProfile(id);
  });

  it('answers JSON that is not UTF-8 with 400 instead of storing U+FFFD', async () => {
    const userId = uniqueId('bytes');
    const body = withInvalidUtf8('{"plan":"pro', '"}');
    await expectProblem(
      await api(account, 'PATCH', userPath(userId, 'profile'), { body, headers: { 'Content-Type': 'application/json' } }),
      400,
      /UTF-8/,
    );
    await expectNoProfile(userId);
  });
});

describe('path parameters', () => {
  it.each([
    ['a user id', (id: string) => userPath(id, 'profile'), /^user_id: .*NUL/],
    ['a group id', (id: string) => groupPath(id, 'profile'), /^group_id: .*NUL/],
    ['a segment id', (id: string) => segmentPath(id), /^segment_id: .*NUL/],
  ])('answers a NUL in %s with 400 naming the parameter', async (_case, pathOf, detail) => {
    await expectProblem(await api(account, 'GET', pathOf('a\u0000b')), 400, detail);
  });

  it('answers a path parameter over 1,024 characters with 414', async () => {
    await expectProblem(await api(account, 'GET', userPath('u'.repeat(1025), 'profile')), 414, /1024 characters/);
  });
});

describe('synchronous CSV and NDJSON bodies that are not UTF-8', () => {
  it('answers a one-row CSV profile update with 400 naming the line, and stores nothing', async () => {
    const userId = uniqueId('csv');
    const response = await api(account, 'PATCH', userPath(userId, 'profile'), {
      body: withInvalidUtf8('plan,seats\npro', ',3\n'),
      headers: { 'Content-Type': 'text/csv' },
    });
    await expectProblem(response, 400, /^line 2: is not UTF-8/);
    await expectNoProfile(userId);
  });

  it('answers group user ids with 400 naming the line, and associates nobody', async () => {
    const [groupId, member] = [uniqueId('group'), uniqueId('member')];
    const body = withInvalidUtf8(`user_id\n${member}\nbad-`, '\n');
    await expectProblem(
      await api(account, 'POST', groupPath(groupId, 'users'), { body, headers: { 'Content-Type': 'text/csv' } }),
      400,
      /^line 3: is not UTF-8/,
    );
    await expectNoProfile(member);
  });

  it('answers segment user ids as NDJSON with 400 naming the line', async () => {
    const segment = await createSegment(account);
    const body = withInvalidUtf8('"u-1"\n"u-', '"\n');
    const response = await api(account, 'POST', segmentPath(segment.id, 'add_user_ids'), {
      body,
      headers: { 'Content-Type': 'application/ndjson' },
    });
    await expectProblem(response, 400, /^line 2: is not UTF-8/);
  });

  it('still reads well-formed multi-byte text', async () => {
    const userId = uniqueId('utf8');
    expect(await expectJson(await api(account, 'PATCH', userPath(userId, 'profile'), csvBody('city,mood\nZürich,😀\n')), 200)).toEqual(
      STATUS_OK,
    );
    expect(await getProfile(account, userId)).toMatchObject({ city: 'Zürich', mood: '😀' });
  });
});

/** An answer read off the socket. */
interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Writes `request` as is on a new connection to the server and reads until the server closes it. */
async function rawExchange(request: Buffer | string): Promise<RawAnswer> {
  const { hostname, port } = new URL(server().baseUrl);
  const received = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.setTimeout(20_000, () => socket.destroy());
  });
  const text = received.toString('utf8');
  const headEnd = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, headEnd).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(headEnd + 4) };
}

function expectRawProblem(answer: RawAnswer, status: number, detail?: RegExp): ProblemBody {
  expect({ status: answer.status, body: answer.body.slice(0, 300) }).toEqual({ status, body: expect.any(String) });
  expect(answer.headers['content-type']).toMatch(/^application\/(problem\+)?json\b/);
  // A short answer: the request is never echoed back.
  expect(answer.body.length).toBeLessThan(500);
  const problem = JSON.parse(answer.body) as ProblemBody;
  expect(problem).toEqual({ error: true, status, title: expect.any(String), detail: expect.any(String) });
  if (detail) expect(problem.detail).toMatch(detail);
  return problem;
}

describe('requests refused before the application runs', () => {
  const accountPath = (): string => `/v2/accounts/${encodeURIComponent(account.id)}`;
  const authorization = (): string => `Authorization: ${basicAuthorization(account.key, account.secret)}\r\n`;

  it('answers a malformed percent escape with a Problem that does not quote the path', async () => {
    for (const path of ['/v2/accounts/%E0%A4%A/flows', `${accountPath()}/users/%E0%A4%A/profile`]) {
      const problem = await expectProblem(
        await fetch(`${server().baseUrl}${path}`, { headers: { Authorization: basicAuthorization(account.key, account.secret) } }),
        400,
      );
      expect(problem.detail).not.toContain('%E0');
    }
  });

  it('answers raw non-ASCII bytes in the path with a Problem', async () => {
    const request = Buffer.concat([
      Buffer.from(`GET ${accountPath()}/users/`),
      Buffer.from([0xc3, 0xa9, 0xff]),
      Buffer.from(`/profile HTTP/1.1\r\nHost: guidepost\r\n${authorization()}\r\n`),
    ]);
    expectRawProblem(await rawExchange(request), 400);
  });

  it('answers a URL too long for the request head with 414, and oversized headers with 431', async () => {
    const filler = 'x'.repeat(20_000);
    const longUrl = expectRawProblem(
      await rawExchange(`GET ${accountPath()}/flows?q=${filler} HTTP/1.1\r\nHost: guidepost\r\n${authorization()}\r\n`),
      414,
    );
    const bigHeaders = expectRawProblem(
      await rawExchange(`GET ${accountPath()}/flows HTTP/1.1\r\nHost: guidepost\r\n${authorization()}X-Filler: ${filler}\r\n\r\n`),
      431,
    );
    for (const problem of [longUrl, bigHeaders]) expect(problem.detail).toMatch(/16 KB/);
  });

  it('answers a request that is not HTTP with a Problem', async () => {
    expectRawProblem(await rawExchange(`GET ${accountPath()}/flows HTTP/1.1\r\nHost: guidepost\r\nnot a header line\r\n\r\n`), 400);
  });
});

describe('methods a path does not take', () => {
  it.each([
    ['DELETE', '/flows', ['GET']],
    ['PUT', '/segments', ['GET', 'POST']],
    ['POST', '/tags', ['GET']],
    ['PUT', `/users/${uniqueId('user')}/profile`, ['DELETE', 'GET', 'PATCH']],
  ] as const)('answers %s %s with 405 and Allow', async (method, path, allowed) => {
    const response = await api(account, method, path);
    await expectProblem(response, 405);
    const allow = (response.headers.get('allow') ?? '').split(',').map((item) => item.trim());
    expect(allow).toEqual(expect.arrayContaining([...allowed]));
    expect(allow).not.toContain(method);
  });

  it('still authenticates first, and still answers 404 for a path that does not exist', async () => {
    await expectProblem(await fetch(accountUrl(account, '/flows'), { method: 'DELETE' }), 401);
    await expectProblem(await api(account, 'DELETE', '/nowhere'), 404);
  });
});

describe('multipart uploads as clients send them', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'guidepost-e2e-curl-'));
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  interface CurlResult {
    readonly status: number;
    readonly body: string;
    /** What curl reports it sent (`--trace-ascii`). */
    readonly trace: string;
  }

  /**
   * Uploads `content` with curl itself, as the README does: `curl -u KEY:SECRET -F file=@<name> -H
   * 'Content-Type: multipart/mixed' URL`, so the encoding is a real client's, not this test's idea of it.
   */
  async function curlUpload(path: string, name: string, content: string | Buffer, extraArgs: string[] = []): Promise<CurlResult> {
    const uploadFolder = await mkdtemp(join(folder, 'upload-'));
    const [file, trace] = [join(uploadFolder, name), join(uploadFolder, 'curl.trace')];
    await writeFile(file, content);
    const args = [
      '-sS',
      '--trace-ascii',
      trace,
      '-u',
      `${account.key}:${account.secret}`,
      '-F',
      `file=@${file}`,
      ...extraArgs,
      '-w',
      '\n%{http_code}',
      accountUrl(account, path),
    ];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`curl exited with ${code}: ${err}`))));
    });
    const cut = output.lastIndexOf('\n');
    return { status: Number(output.slice(cut + 1)), body: output.slice(0, cut), trace: await readFile(trace, 'utf8') };
  }

  const MIXED = ['-H', 'Content-Type: multipart/mixed'];

  it('associates users with a group from curl -F under multipart/mixed (a part with Content-Disposition: attachment)', async () => {
    const [groupId, first, second] = [uniqueId('group'), uniqueId('member'), uniqueId('member')];
    const result = await curlUpload(groupPath(groupId, 'users'), 'ids.csv', `user_id\n${first}\n${second}\n`, MIXED);
    expect(result.trace).toMatch(/Content-Type: multipart\/mixed; boundary=/);
    expect(result.trace).toMatch(/Content-Disposition: attachment; name="file"; filename="ids\.csv"/);
    expect({ status: result.status, body: JSON.parse(result.body) as unknown }).toEqual({ status: 200, body: STATUS_OK });
    for (const member of [first, second]) expect(await getProfile(account, member)).toMatchObject({ group_id: groupId });
  });

  it('adds segment users from curl -F under multipart/mixed and from plain curl -F (form-data)', async () => {
    const segment = await createSegment(account);
    for (const extra of [MIXED, []]) {
      const result = await curlUpload(segmentPath(segment.id, 'add_user_ids'), 'ids.ndjson', '"u-1"\n"u-2"\n', extra);
      expect(result.status).toBe(202);
      const job = await waitForJob(account, (JSON.parse(result.body) as { job_id: string }).job_id);
      expect(job.status).toBe('COMPLETED');
    }
  });

  it('imports profiles from curl -F under multipart/mixed', async () => {
    const [first, second] = [uniqueId('imported'), uniqueId('imported')];
    const result = await curlUpload('/import/profiles', 'profiles.csv', `user_id,plan\n${first},pro\n${second},free\n`, MIXED);
    expect(result.status).toBe(202);
    const job = await waitForJob(account, (JSON.parse(result.body) as { job_id: string }).job_id);
    expect(job.status).toBe('COMPLETED');
    expect(await getProfile(account, first)).toMatchObject({ plan: 'pro' });
    expect(await getProfile(account, second)).toMatchObject({ plan: 'free' });
  });

  it('answers an uploaded file that is not UTF-8 with 400 naming the line', async () => {
    const result = await curlUpload(groupPath(uniqueId('group'), 'users'), 'ids.csv', withInvalidUtf8('user_id\nu-1\nu-', '2\n'), MIXED);
    expect(result.status).toBe(400);
    expect((JSON.parse(result.body) as ProblemBody).detail).toMatch(/^line 3: is not UTF-8/);
  });

  /** A multipart/form-data body as a browser's FormData writes it: a WebKit boundary, form-data parts. */
  function browserForm(parts: readonly { name: string; filename?: string; type?: string; content: string }[]): {
    body: string;
    headers: Record<string, string>;
  } {
    const boundary = `----WebKitFormBoundary${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const body = parts
      .map((part) => {
        const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
        const type = part.type === undefined ? '' : `\r\nContent-Type: ${part.type}`;
        return `--${boundary}\r\n${disposition}${type}\r\n\r\n${part.content}\r\n`;
      })
      .join('');
    return { body: `${body}--${boundary}--\r\n`, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
  }

  it('associates users from a browser form with another field before the file', async () => {
    const [groupId, member] = [uniqueId('group'), uniqueId('member')];
    const form = browserForm([
      { name: 'comment', content: 'uploaded from the settings page' },
      { name: 'file', filename: 'members.csv', type: 'text/csv', content: `userId\n${member}\n` },
    ]);
    expect(await expectJson(await api(account, 'PATCH', groupPath(groupId, 'users'), form), 200)).toEqual(STATUS_OK);
    expect(await getProfile(account, member)).toMatchObject({ group_id: groupId });
  });

  it('answers an upload with two file parts with 400 and associates nobody', async () => {
    const [groupId, first, second] = [uniqueId('group'), uniqueId('member'), uniqueId('member')];
    const form = browserForm([
      { name: 'file', filename: 'a.csv', type: 'text/csv', content: `user_id\n${first}\n` },
      { name: 'file', filename: 'b.csv', type: 'text/csv', content: `user_id\n${second}\n` },
    ]);
    await expectProblem(await api(account, 'POST', groupPath(groupId, 'users'), form), 400, /^file: was sent more than once/);
    await expectNoProfile(first);
    await expectNoProfile(second);
  });

  it('answers an import with two file parts with 400 and starts no job', async () => {
    const form = browserForm([
      { name: 'file', filename: 'a.ndjson', type: 'application/x-ndjson', content: '{"user_id":"x-1"}\n' },
      { name: 'file', filename: 'b.ndjson', type: 'application/x-ndjson', content: '{"user_id":"x-2"}\n' },
    ]);
    const jobsBefore = await expectJson<unknown[]>(await api(account, 'GET', '/jobs'), 200);
    await expectProblem(await api(account, 'POST', '/import/profiles', form), 400, /^file: was sent more than once/);
    expect(await expectJson<unknown[]>(await api(account, 'GET', '/jobs'), 200)).toHaveLength(jobsBefore.length);
  });

  it('answers an upload cut short before its closing boundary with 400', async () => {
    const form = browserForm([{ name: 'file', filename: 'ids.csv', type: 'text/csv', content: 'user_id\nu-1\n' }]);
    const truncated = form.body.replace(/--[^\r\n]+--\r\n$/, '');
    await expectProblem(await api(account, 'POST', groupPath(uniqueId('group'), 'users'), { ...form, body: truncated }), 400, /multipart/);
  });

  it('still answers NDJSON sent as a body, not a file', async () => {
    const segment = await createSegment(account);
    expect((await api(account, 'POST', segmentPath(segment.id, 'add_user_ids'), ndjsonBody('"u-1"\n'))).status).toBe(202);
  });
});
