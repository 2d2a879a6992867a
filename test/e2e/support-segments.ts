import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  ADMIN_TOKEN_VARIABLE,
  ADMIN_URL_VARIABLE,
  api,
  BASE_URL_VARIABLE,
  basicAuthorization,
  expectJson,
  waitForJob,
  type ApiInit,
  type JobDetail,
  type JobEvent,
  type ServerAddress,
  type TestAccount,
} from './support';

/**
 * Helpers shared by the segment, job and persistence specs. They drive only the public API, so a
 * spec reads as a client's story: create a segment, submit ids, wait for the job, read the export.
 */

export interface Segment {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by: string;
  readonly updated_by: string;
  readonly url: string;
}

export interface AsyncAcknowledgement {
  readonly status: number;
  readonly title: string;
  readonly job_id: string;
  readonly job_url: string;
}

export const SEGMENT_FIELDS = ['created_at', 'created_by', 'description', 'id', 'name', 'updated_at', 'updated_by', 'url'];
export const JOB_SUMMARY_FIELDS = ['id', 'name', 'started_at', 'status', 'url'];
export const COMPLETED_COUNTERS = ['ingestions_completed', 'ingestions_failed', 'requests_failed', 'runtime_ms'];
/** Segment timestamps are `toISOString()`: milliseconds and `Z`. */
export const SEGMENT_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Job `started_at` is UTC without a zone suffix. */
export const JOB_STARTED_AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/;
export const ONE_WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export function uniqueName(prefix: string): string {
  return `${prefix} ${randomUUID().slice(0, 8)}`;
}

export function segmentPath(segmentId: string, operation = ''): string {
  return `/segments/${encodeURIComponent(segmentId)}${operation === '' ? '' : `/${operation}`}`;
}

/** Asserts that `url` is absolute (http or https) and ends with `suffix`. */
export function expectAbsoluteUrl(url: unknown, suffix = ''): void {
  expect(typeof url).toBe('string');
  const parsed = new URL(url as string);
  expect(['http:', 'https:']).toContain(parsed.protocol);
  expect(url as string).toMatch(new RegExp(`${escapeRegExp(suffix)}$`));
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export async function createSegment(account: TestAccount, body: Record<string, unknown> = {}): Promise<Segment> {
  const response = await api(account, 'POST', '/segments', { json: { name: uniqueName('segment'), ...body } });
  return expectJson<Segment>(response, 201);
}

/**
 * Checks a 202 asynchronous acknowledgement and that its absolute `job_url` answers at once (the job
 * is created before the 202), then returns it.
 */
export async function expectAccepted(account: TestAccount, response: Response): Promise<AsyncAcknowledgement> {
  const ack = await expectJson<AsyncAcknowledgement>(response, 202);
  expect(Object.keys(ack).sort()).toEqual(['job_id', 'job_url', 'status', 'title']);
  expect(ack).toMatchObject({ status: 202, title: 'Accepted' });
  expect(typeof ack.job_id).toBe('string');
  expect(ack.job_id.length).toBeGreaterThan(0);
  expectAbsoluteUrl(ack.job_url, `/v2/accounts/${encodeURIComponent(account.id)}/jobs/${encodeURIComponent(ack.job_id)}`);
  const job = await expectJson<JobDetail>(await getAbsolute(account, ack.job_url), 200);
  expect(job.id).toBe(ack.job_id);
  // A job may already have ended by the time the client asks: an unreadable file fails within milliseconds.
  expect(['IN_PROGRESS', 'COMPLETED', 'FAILED']).toContain(job.status);
  return ack;
}

/** GETs an absolute API URL with the account's credentials, retrying a 429 as `api` does. */
async function getAbsolute(account: TestAccount, url: string): Promise<Response> {
  const headers = { Authorization: basicAuthorization(account.key, account.secret) };
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(url, { headers });
    if (response.status !== 429 || attempt >= 10) return response;
    await response.arrayBuffer();
    await delay(Number(response.headers.get('retry-after') ?? '1') * 1000);
  }
}

/** Waits for the job, requires COMPLETED and returns it with its `Completed` event. */
export async function completedJob(
  account: TestAccount,
  ack: AsyncAcknowledgement,
  timeoutMs?: number,
): Promise<{ job: JobDetail; completed: JobEvent }> {
  const job = await waitForJob(account, ack.job_url, timeoutMs);
  expect({ status: job.status, events: job.events }).toMatchObject({ status: 'COMPLETED' });
  const completed = job.events.find((event) => event.name === 'Completed');
  if (completed === undefined) throw new Error(`job ${job.id} is COMPLETED without a Completed event: ${JSON.stringify(job.events)}`);
  return { job, completed };
}

export type UserIdOperation = 'add' | 'remove';

/**
 * Submits user ids to add_user_ids or remove_user_ids, waits for the job to complete and returns the
 * attributes of its `Completed` event (after checking that the four counters are numbers).
 */
export async function submitUserIds(
  account: TestAccount,
  segmentId: string,
  operation: UserIdOperation,
  init: ApiInit,
  timeoutMs?: number,
): Promise<Record<string, unknown>> {
  const response = await api(account, 'POST', segmentPath(segmentId, `${operation}_user_ids`), init);
  const { completed } = await completedJob(account, await expectAccepted(account, response), timeoutMs);
  for (const counter of COMPLETED_COUNTERS) expect({ [counter]: typeof completed.attributes[counter] }).toEqual({ [counter]: 'number' });
  return completed.attributes;
}

export function addUserIds(account: TestAccount, segmentId: string, userIds: readonly string[]): Promise<Record<string, unknown>> {
  return submitUserIds(account, segmentId, 'add', { json: { user_ids: userIds } });
}

export function removeUserIds(account: TestAccount, segmentId: string, userIds: readonly string[]): Promise<Record<string, unknown>> {
  return submitUserIds(account, segmentId, 'remove', { json: { user_ids: userIds } });
}

/** A finished membership export: the `Completed` attributes and the download link among them. */
export interface MembershipExport {
  readonly job: JobDetail;
  readonly attributes: Record<string, unknown>;
  readonly link: string;
}

export async function exportMembership(account: TestAccount, segmentId: string, body: unknown = {}): Promise<MembershipExport> {
  const response = await api(account, 'POST', segmentPath(segmentId, 'segment_membership_export'), { json: body });
  const { job, completed } = await completedJob(account, await expectAccepted(account, response));
  expectAbsoluteUrl(completed.attributes['signed_s3_url']);
  return { job, attributes: completed.attributes, link: completed.attributes['signed_s3_url'] as string };
}

/** Downloads an export link the way a mail recipient would: no credentials. */
export async function download(link: string): Promise<string> {
  const response = await fetch(link);
  const text = await response.text();
  expect({ status: response.status, body: text.slice(0, 500) }).toMatchObject({ status: 200 });
  return text;
}

/** Parses newline-delimited JSON, ignoring blank lines. */
export function ndjsonObjects(text: string): unknown[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/**
 * The segment's members as the default (JSON) membership export reports them, sorted. Every line
 * must be exactly `{ "user_id": ... }` and `rows` must count them.
 */
export async function memberIds(account: TestAccount, segmentId: string): Promise<string[]> {
  const { attributes, link } = await exportMembership(account, segmentId);
  const lines = ndjsonObjects(await download(link));
  for (const line of lines) expect(line).toEqual({ user_id: expect.any(String) });
  expect(attributes['rows']).toBe(lines.length);
  return lines.map((line) => (line as { user_id: string }).user_id).sort();
}

/** A multipart body built by hand, as clients that send `multipart/mixed` do. */
export function handBuiltMultipart(
  subtype: string,
  part: { field: string; fileName: string; contentType: string; content: string },
): { body: string; headers: Record<string, string> } {
  const boundary = `guidepost-e2e-${randomUUID()}`;
  const body = [
    `--${boundary}`,
    `Content-Disposition: form-data; name="${part.field}"; filename="${part.fileName}"`,
    `Content-Type: ${part.contentType}`,
    '',
    part.content,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return { body, headers: { 'Content-Type': `multipart/${subtype}; boundary=${boundary}` } };
}

/**
 * Points the harness helpers (`api`, `admin`, `createAccount`, `waitForJob`, ...) at another server
 * for the rest of this test file; returns the function that points them back. Jest gives each test
 * file its own copy of `process.env`, so other files are not affected.
 */
export function useServer(address: ServerAddress): () => void {
  const previous = {
    baseUrl: process.env[BASE_URL_VARIABLE],
    adminUrl: process.env[ADMIN_URL_VARIABLE],
    adminToken: process.env[ADMIN_TOKEN_VARIABLE],
  };
  process.env[BASE_URL_VARIABLE] = address.baseUrl;
  restoreVariable(ADMIN_URL_VARIABLE, address.adminUrl);
  process.env[ADMIN_TOKEN_VARIABLE] = address.adminToken;
  return () => {
    restoreVariable(BASE_URL_VARIABLE, previous.baseUrl);
    restoreVariable(ADMIN_URL_VARIABLE, previous.adminUrl);
    restoreVariable(ADMIN_TOKEN_VARIABLE, previous.adminToken);
  };
}

function restoreVariable(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
