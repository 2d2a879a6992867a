import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { basicAuthorization, expectJson, type TestAccount } from '../e2e/support';
import { historyOfAtLeast, ndjsonText } from '../e2e/support-people';
import { useSpecSuite } from './support';

const INSTANT = '2024-05-01T09:30:00.000Z';

interface Answer {
  readonly status: number;
  readonly replayed: string | null;
  readonly text: string;
}

/** A request to one gateway replica, with the account's credentials and the key. */
async function keyed(gatewayUrl: string, account: TestAccount, method: string, path: string, key: string, json?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: basicAuthorization(account.key, account.secret), 'Idempotency-Key': key };
  if (json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${gatewayUrl}/v2/accounts/${account.id}${path}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), text: await response.text() };
}

/**
 * Starts an NDJSON import through one replica and sends its body in two halves: the second only when
 * `finish` is called. `firstHalfSent` resolves once the headers and the first half are on the wire;
 * `answer` with the status and body once the import is answered.
 */
function slowImport(
  gatewayUrl: string,
  account: TestAccount,
  key: string,
  body: string,
): { firstHalfSent: Promise<void>; finish: () => void; answer: Promise<Answer> } {
  const { hostname, port } = new URL(gatewayUrl);
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const request = httpRequest({
    hostname,
    port,
    method: 'POST',
    path: `/v2/accounts/${account.id}/import/profiles`,
    headers: {
      authorization: basicAuthorization(account.key, account.secret),
      'idempotency-key': key,
      'content-type': 'application/ndjson',
      'content-length': bytes.length,
    },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          replayed: (response.headers['idempotent-replayed'] as string | undefined) ?? null,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    request.on('error', reject);
  });
  const firstHalfSent = new Promise<void>((resolve, reject) =>
    request.write(bytes.subarray(0, half), (error) => (error ? reject(error) : resolve())),
  );
  return { firstHalfSent, finish: () => void request.end(bytes.subarray(half)), answer };
}

/**
 * `Idempotency-Key` across gateway replicas: the claim is a row in the gateway's schema, so a request
 * is never run twice at once, nor twice one after the other, whichever replicas its copies reach.
 */
describe('Idempotency-Key across two gateway replicas', () => {
  const spec = useSpecSuite({ gatewayReplicas: 2 });

  it('answers a copy reaching the other replica while the first still runs with a 409, then with the same job', async () => {
    const [first, second] = spec.suite.gatewayUrls;
    const { account } = spec;
    const key = randomUUID();
    const rows = ndjsonText(Array.from({ length: 2_000 }, (_, index) => ({ user_id: `replica-${index}`, plan: 'pro' })));

    const running = slowImport(first, account, key, rows);
    // The claim is taken before the body is read, as soon as the head has arrived. A copy sent before
    // that would take the claim itself (and, without a body, be answered 400 by the import), so the
    // copies wait until the first half is on the wire and the replica has had a moment to claim.
    await running.firstHalfSent;
    await new Promise((resolve) => setTimeout(resolve, 500));
    let concurrent: Answer | undefined;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      concurrent = await keyed(second, account, 'POST', '/import/profiles', key);
      if (concurrent.status === 409) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(concurrent?.status).toBe(409);
    expect((JSON.parse(concurrent?.text ?? '{}') as { detail?: string }).detail).toMatch(/^Idempotency-Key: .*still being processed/);

    running.finish();
    const answered = await running.answer;
    expect(answered.status).toBe(202);
    const { job_id: jobId } = JSON.parse(answered.text) as { job_id: string };

    const retry = await replayedImport(second, account, key, rows);
    expect(retry.status).toBe(202);
    expect(retry.replayed).toBe('true');
    expect((JSON.parse(retry.text) as { job_id: string }).job_id).toBe(jobId);
    const jobs = await expectJson<{ id: string }[]>(
      await fetch(`${second}/v2/accounts/${account.id}/jobs`, {
        headers: { Authorization: basicAuthorization(account.key, account.secret) },
      }),
      200,
    );
    expect(jobs.filter((job) => job.id === jobId)).toHaveLength(1);
    expect(jobs).toHaveLength(1);
  }, 60_000);

  it('runs one of many concurrent copies of a track spread over both replicas, and stores its event once', async () => {
    const [first, second] = spec.suite.gatewayUrls;
    const { account } = spec;
    const key = randomUUID();
    const userId = `raced-${randomUUID().slice(0, 8)}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        keyed(index % 2 === 0 ? first : second, account, 'POST', `/users/${userId}/events`, key, { name: 'raced', timestamp: INSTANT }),
      ),
    );
    const originals = answers.filter((answer) => answer.status === 200 && answer.replayed === null);
    expect(originals).toHaveLength(1);
    for (const answer of answers.filter((candidate) => !originals.includes(candidate))) {
      expect([409, 200]).toContain(answer.status);
      if (answer.status === 200) expect(answer.replayed).toBe('true');
    }
    await keyed(second, account, 'POST', `/users/${userId}/events`, randomUUID(), {
      name: 'marker',
      timestamp: '2024-05-01T09:31:00.000Z',
    });
    const events = await historyOfAtLeast(account, userId, 2);
    expect(events.filter((event) => event.name === 'raced')).toHaveLength(1);
  }, 60_000);
});

/** The same import again, in one piece, through `gatewayUrl`. */
async function replayedImport(gatewayUrl: string, account: TestAccount, key: string, rows: string): Promise<Answer> {
  const response = await fetch(`${gatewayUrl}/v2/accounts/${account.id}/import/profiles`, {
    method: 'POST',
    headers: {
      Authorization: basicAuthorization(account.key, account.secret),
      'Idempotency-Key': key,
      'Content-Type': 'application/ndjson',
    },
    body: rows,
  });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), text: await response.text() };
}
