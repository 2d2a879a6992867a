import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { api, basicAuthorization, createAccount, expectJson, server, upsert, waitForJob, type TestAccount } from './support';
import { uniqueId } from './support-people';

/**
 * Absolute links are derived from the request when GUIDEPOST_PUBLIC_URL is unset, as it is for the
 * suite's servers of both shapes: on the host the client sent, or on the one a trusted proxy forwarded
 * (loopback is trusted by default, and this client runs there). Behind the gateway the services link
 * on the base the gateway states, never on their own address, and a job links later on the base of the
 * request that created it. The requests go out through node:http, which sends `Host` as written.
 */

const CLIENT_HOST = 'api.example.test:8443';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** `method` on the account's `path` with its key, `headers` added (a `host` replaces the real one). */
function send(account: TestAccount, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const base = new URL(server().baseUrl);
  const transmit = base.protocol === 'https:' ? httpsRequest : httpRequest;
  const options = {
    hostname: base.hostname,
    port: base.port,
    method,
    path: `/v2/accounts/${encodeURIComponent(account.id)}${path}`,
    headers: { authorization: basicAuthorization(account.key, account.secret), ...headers },
    rejectUnauthorized: false,
  };
  return new Promise((resolve, reject) => {
    const outgoing = transmit(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function sendForJson<T>(status: number, ...request: Parameters<typeof send>): Promise<T> {
  const answer = await send(...request);
  expect({ status: answer.status, body: answer.body.slice(0, 500) }).toEqual({ status, body: expect.any(String) as string });
  return JSON.parse(answer.body) as T;
}

/** The scheme the suite's server serves (the links of a request without a proxy say it). */
const servedScheme = (): string => new URL(server().baseUrl).protocol.replace(/:$/, '');

let account: TestAccount;
const flowId = uniqueId('linked-flow');

beforeAll(async () => {
  account = await createAccount();
  await upsert(account, 'flows', [{ id: flowId, name: 'Linked' }]);
});

const accountPath = (): string => `/v2/accounts/${encodeURIComponent(account.id)}`;

describe('links derived from the request', () => {
  it('link a record on the host the client sent, in the content and the segment service alike', async () => {
    const clientBase = `${servedScheme()}://${CLIENT_HOST}${accountPath()}`;
    const flow = await sendForJson<{ url: string }>(200, account, 'GET', `/flows/${flowId}`, { host: CLIENT_HOST });
    expect(flow.url).toBe(`${clientBase}/flows/${flowId}`);

    const segment = await sendForJson<{ id: string; url: string }>(
      201,
      account,
      'POST',
      '/segments',
      { host: CLIENT_HOST, 'content-type': 'application/json' },
      JSON.stringify({ name: uniqueId('linked-segment') }),
    );
    expect(segment.url).toBe(`${clientBase}/segments/${segment.id}`);
  });

  it("acknowledge a job on the client's host, and the job links its failures there once it ran", async () => {
    const rows = `${JSON.stringify({ user_id: uniqueId('linked-user'), plan: 'pro' })}\nnot json\n`;
    const headers = { host: CLIENT_HOST, 'content-type': 'application/ndjson' };
    const ack = await sendForJson<{ job_id: string; job_url: string }>(202, account, 'POST', '/import/profiles', headers, rows);
    const jobUrl = `${servedScheme()}://${CLIENT_HOST}${accountPath()}/jobs/${encodeURIComponent(ack.job_id)}`;
    expect(ack.job_url).toBe(jobUrl);

    // Read through the suite's own address: the job's own `url` follows this request, its failures the import's.
    const job = await waitForJob(account, ack.job_id);
    expect(job.url).toBe(`${server().baseUrl}${accountPath()}/jobs/${encodeURIComponent(ack.job_id)}`);
    const completed = job.events.find((event) => event.name === 'Completed');
    expect(completed?.attributes).toMatchObject({ ingestions_failed: 1, failures_url: `${jobUrl}/failures` });
  });

  it('honour X-Forwarded-Host and -Proto from a trusted proxy (loopback, where this client runs)', async () => {
    const forwarded = { 'x-forwarded-host': 'public.example.com', 'x-forwarded-proto': 'https' };
    const flow = await sendForJson<{ url: string }>(200, account, 'GET', `/flows/${flowId}`, { host: CLIENT_HOST, ...forwarded });
    expect(flow.url).toBe(`https://public.example.com${accountPath()}/flows/${flowId}`);

    const ack = await sendForJson<{ job_url: string }>(202, account, 'DELETE', `/users/${uniqueId('gone')}/profile`, forwarded);
    expect(ack.job_url).toMatch(new RegExp(`^https://public\\.example\\.com${accountPath()}/jobs/`));
  });

  it('answer 400 naming the header whose host is none, before acting on the request', async () => {
    const segmentName = uniqueId('never-created');
    for (const [headers, detail] of [
      [{ host: 'api.example.test/elsewhere' }, /^Host: is not a host name/],
      [{ 'x-forwarded-host': 'evil.test?x=' }, /^X-Forwarded-Host: is not a host name/],
      [{ 'x-forwarded-proto': 'gopher' }, /^X-Forwarded-Proto: must be http or https/],
    ] as const) {
      const problem = await sendForJson<{ status: number; detail: string }>(
        400,
        account,
        'POST',
        '/segments',
        { ...headers, 'content-type': 'application/json' },
        JSON.stringify({ name: segmentName }),
      );
      expect(problem).toMatchObject({ status: 400, detail: expect.stringMatching(detail) as string });
    }
    const segments = await expectJson<{ name: string }[]>(await api(account, 'GET', '/segments'), 200);
    expect(segments.map((segment) => segment.name)).not.toContain(segmentName);
  });
});
