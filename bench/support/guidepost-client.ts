import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AdminClient, type AsyncAcknowledgement, type EventExportRequest, type JobDetail } from '@guidepost/contracts-http';
import { pollUntil } from './clock';
import type { Deployment } from './deployment';
import { GENERATED_EVENTS_WINDOW } from './event-rows';

/** Short, so that a job's time to COMPLETED is measured within a tenth of a second. */
const JOB_POLL_INTERVAL_MS = 100;
const QUERYABLE_POLL_INTERVAL_MS = 1_000;

/** An account with one API key, and the public API calls the benchmark makes with it. */
export class BenchAccount {
  readonly authorization: string;

  private constructor(
    private readonly baseUrl: string,
    readonly id: string,
    key: string,
    secret: string,
  ) {
    this.authorization = `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
  }

  /** Creates the account and a key through the admin API. */
  static async create(server: Pick<Deployment, 'baseUrl' | 'adminToken'>, name: string): Promise<BenchAccount> {
    const admin = new AdminClient(server.baseUrl, server.adminToken);
    const account = await admin.createAccount({ name });
    const key = await admin.createApiKey(account.id);
    return new BenchAccount(server.baseUrl, account.id, key.key, key.secret);
  }

  /** `${baseUrl}/v2/accounts/${id}${path}`. */
  url(path: string): string {
    return `${this.baseUrl}/v2/accounts/${encodeURIComponent(this.id)}${path}`;
  }

  /** Uploads an NDJSON file to `POST /import/events` as the multipart field `file`; resolves when answered (202). */
  async importEvents(path: string): Promise<AsyncAcknowledgement> {
    const form = new FormData();
    // A Blob backed by the file: fetch streams it instead of reading 200 MB into memory.
    form.append('file', await openAsBlob(path, { type: 'application/ndjson' }), basename(path));
    return this.call<AsyncAcknowledgement>('POST', '/import/events', form, 202);
  }

  exportEvents(request: EventExportRequest): Promise<AsyncAcknowledgement> {
    return this.call<AsyncAcknowledgement>('POST', '/export/events', JSON.stringify(request), 202, 'application/json');
  }

  /** `POST /analytics/query`: the rows of the answer. */
  analyticsQuery(spec: object): Promise<Record<string, unknown>[]> {
    return this.call<Record<string, unknown>[]>('POST', '/analytics/query', JSON.stringify(spec), 200, 'application/json');
  }

  /** `POST /analytics/query` as a dashboard sends it: the answer whatever its status, for the caller to tell a refusal from a failure. */
  analyticsAttempt(spec: object): Promise<Answer> {
    return this.send('POST', '/analytics/query', JSON.stringify(spec), 'application/json');
  }

  /**
   * Waits until the account holds at least `events` queryable generated events (counted through
   * `POST /analytics/query` over the days they span): an import completes once its rows are accepted, and the distributed
   * shape stores them a little later, so a stage started at once would measure a store still being
   * written.
   */
  async untilQueryable(events: number, timeoutMs: number): Promise<void> {
    const everything = { metrics: ['events'], ...GENERATED_EVENTS_WINDOW };
    let stored = 0;
    await pollUntil(
      async () => {
        const [row] = await this.analyticsQuery(everything);
        stored = Number(row?.['events'] ?? 0);
        return stored >= events ? true : undefined;
      },
      {
        timeoutMs,
        intervalMs: QUERYABLE_POLL_INTERVAL_MS,
        describeWait: () => `only ${stored} of ${events} imported events are queryable`,
      },
    );
  }

  /** Polls the job until it is no longer `IN_PROGRESS`; a `FAILED` job is an error carrying its last event. */
  async finishedJob(jobId: string, timeoutMs: number): Promise<JobDetail> {
    let last: JobDetail | undefined;
    const job = await pollUntil(
      async () => {
        last = await this.call<JobDetail>('GET', `/jobs/${encodeURIComponent(jobId)}`, undefined, 200);
        return last.status === 'IN_PROGRESS' ? undefined : last;
      },
      {
        timeoutMs,
        intervalMs: JOB_POLL_INTERVAL_MS,
        describeWait: () => `job ${jobId} still IN_PROGRESS: ${JSON.stringify(last?.events)}`,
      },
    );
    if (job.status === 'FAILED') throw new Error(`job ${jobId} FAILED: ${JSON.stringify(job.events.at(-1))}`);
    return job;
  }

  private async call<T>(
    method: string,
    path: string,
    body: string | FormData | undefined,
    status: number,
    contentType?: string,
  ): Promise<T> {
    const answer = await this.send(method, path, body, contentType);
    if (answer.status !== status)
      throw new Error(`${method} ${path}: expected ${status}, got ${answer.status}: ${answer.text.slice(0, 500)}`);
    return JSON.parse(answer.text) as T;
  }

  private async send(method: string, path: string, body: string | FormData | undefined, contentType?: string): Promise<Answer> {
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json' };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const response = await fetch(this.url(path), { method, headers, body });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
}

/** An answer of the API, read whole. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** The attributes of a finished job's `Completed` event. */
export function completedAttributes(job: JobDetail): Record<string, unknown> {
  const completed = job.events.find((event) => event.name === 'Completed');
  if (completed === undefined) throw new Error(`job ${job.id} has no Completed event: ${JSON.stringify(job.events)}`);
  return completed.attributes;
}

/** A number attribute of a `Completed` event; missing or not a number is an error naming it. */
export function countAttribute(attributes: Record<string, unknown>, name: string): number {
  const value = attributes[name];
  if (typeof value !== 'number') throw new Error(`Completed event: '${name}' is ${JSON.stringify(value)}, not a number`);
  return value;
}

/** The body of a GET as a byte stream (for export downloads, counted without holding them). */
export async function downloadStream(url: string): Promise<Readable> {
  const response = await fetch(url);
  if (response.status !== 200 || response.body === null) {
    throw new Error(`GET ${url}: expected 200 with a body, got ${response.status}: ${(await response.text()).slice(0, 500)}`);
  }
  return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
}
