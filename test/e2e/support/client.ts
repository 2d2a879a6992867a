import { randomUUID } from 'node:crypto';
import { delay } from './server-process';

/** Where the suite's server is; set by global-setup (or by whoever runs the suite against a deployment). */
export interface ServerAddress {
  readonly baseUrl: string;
  /** Where the admin API answers, when not at `baseUrl` (a gateway with `GUIDEPOST_ADMIN_PORT`). */
  readonly adminUrl?: string;
  readonly adminToken: string;
}

export const BASE_URL_VARIABLE = 'GUIDEPOST_E2E_BASE_URL';
export const ADMIN_TOKEN_VARIABLE = 'GUIDEPOST_E2E_ADMIN_TOKEN';
/** Optional: the admin API's base URL when it is not the public one (the Helm chart's `<release>-gateway-admin`). */
export const ADMIN_URL_VARIABLE = 'GUIDEPOST_E2E_ADMIN_URL';

export function server(): Required<ServerAddress> {
  const baseUrl = process.env[BASE_URL_VARIABLE];
  const adminToken = process.env[ADMIN_TOKEN_VARIABLE];
  if (!baseUrl || !adminToken) {
    throw new Error(`${BASE_URL_VARIABLE} and ${ADMIN_TOKEN_VARIABLE} are not set: run through the e2e jest project`);
  }
  const adminUrl = process.env[ADMIN_URL_VARIABLE] || baseUrl;
  return { baseUrl: baseUrl.replace(/\/+$/, ''), adminUrl: adminUrl.replace(/\/+$/, ''), adminToken };
}

/** An account with one API key, created through the admin API. */
export interface TestAccount {
  readonly id: string;
  readonly key: string;
  readonly secret: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Calls the admin API with the admin token; `body` is sent as JSON when given. */
export function admin(method: HttpMethod, path: string, body?: unknown): Promise<Response> {
  const { adminUrl, adminToken } = server();
  const headers: Record<string, string> = { Authorization: `Bearer ${adminToken}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${adminUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

export async function createAccount(name = `e2e ${randomUUID()}`): Promise<TestAccount> {
  const account = await expectJson<{ id: string }>(await admin('POST', '/admin/v1/accounts', { name }), 201);
  return { id: account.id, ...(await createApiKey(account.id)) };
}

/** One more key of an existing account. */
export async function createApiKey(accountId: string): Promise<{ key: string; secret: string }> {
  const created = await expectJson<{ key: string; secret: string }>(
    await admin('POST', `/admin/v1/accounts/${encodeURIComponent(accountId)}/api_keys`),
    201,
  );
  return { key: created.key, secret: created.secret };
}

export type ContentKind = 'flows' | 'pins' | 'mobile' | 'tags' | 'launchpads' | 'banners' | 'checklists' | 'flows-v2' | 'embeds' | 'nps';

/** Upserts content records through the admin API (each record needs `id` and `name`). */
export async function upsert(
  account: Pick<TestAccount, 'id'>,
  kind: ContentKind,
  records: readonly object[],
): Promise<{ upserted: number }> {
  return expectJson(await admin('PUT', `/admin/v1/accounts/${encodeURIComponent(account.id)}/${kind}`, records), 200);
}

export interface ApiInit {
  /** Sent as `application/json`. */
  readonly json?: unknown;
  /** Sent as is; set `Content-Type` in `headers` (FormData sets its own). */
  readonly body?: string | Buffer | FormData | Blob;
  /** Added to (and overriding) the Basic `Authorization` header. */
  readonly headers?: Record<string, string>;
  /**
   * Retry a 429 after its `Retry-After`, as clients do (default true), so that a busy spec is not
   * failed by the rate limit. Tests of throttling itself turn it off.
   */
  readonly retryThrottled?: boolean;
}

const MAX_THROTTLED_RETRIES = 10;

/** Calls `${baseUrl}/v2/accounts/${account.id}${path}` with the account's key and secret. */
export async function api(account: TestAccount, method: HttpMethod, path: string, init: ApiInit = {}): Promise<Response> {
  const headers: Record<string, string> = { Authorization: basicAuthorization(account.key, account.secret) };
  let body: string | Buffer | FormData | Blob | undefined = init.body;
  if (init.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  Object.assign(headers, init.headers);
  const url = accountUrl(account, path);
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(url, { method, headers, body });
    if (response.status !== 429 || init.retryThrottled === false || attempt >= MAX_THROTTLED_RETRIES) return response;
    await response.arrayBuffer();
    await delay(Number(response.headers.get('retry-after') ?? '1') * 1000);
  }
}

/**
 * A record's `url` is absolute and addresses the record itself: its path is the record's, and a GET on
 * it with the same key answers the same record. It is followed at the suite's base URL, since the
 * server's public URL may name a host in front of it.
 */
export async function expectSelfUrl(account: TestAccount, record: Record<string, unknown>, path: string): Promise<void> {
  const url = new URL(String(record['url']));
  expect(url.pathname).toBe(new URL(accountUrl(account, path)).pathname);
  const response = await fetch(`${server().baseUrl}${url.pathname}`, {
    headers: { Authorization: basicAuthorization(account.key, account.secret) },
  });
  expect(await expectJson(response, 200)).toEqual(record);
}

export function accountUrl(account: Pick<TestAccount, 'id'>, path = ''): string {
  return `${server().baseUrl}/v2/accounts/${encodeURIComponent(account.id)}${path}`;
}

export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The JSON body of a response that must have the given status (the body is shown when it has not). */
export async function expectJson<T = unknown>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  if (response.status !== status) {
    throw new Error(`${response.url}: expected ${status}, got ${response.status}: ${text.slice(0, 2000)}`);
  }
  return JSON.parse(text) as T;
}
