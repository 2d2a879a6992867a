import { describeNetworkError, problemDetail } from '../http-failure';
import type { StatusAcknowledgement } from '../schemas/common.schema';
import type { IngestionFilteringRules, IngestionFilteringRulesInput } from '../schemas/content.schema';
import type { Account, ContentKind, CreateAccountRequest, CreatedApiKey, UpsertResult } from './admin.schema';

/** A non-2xx answer of the admin API, carrying the status and the Problem `detail`. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`admin API answered ${status}: ${detail}`);
    this.name = 'AdminApiError';
  }
}

/**
 * Typed client of the admin API (`/admin/v1`), authenticated with the admin Bearer token. Used by the
 * CLI and by anything that seeds accounts and content (demo, tests).
 */
export class AdminClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  createAccount(input: CreateAccountRequest): Promise<Account> {
    return this.request('POST', '/admin/v1/accounts', input);
  }

  listAccounts(): Promise<Account[]> {
    return this.request('GET', '/admin/v1/accounts');
  }

  createApiKey(accountId: string): Promise<CreatedApiKey> {
    return this.request('POST', `${accountPath(accountId)}/api_keys`);
  }

  revokeApiKey(accountId: string, key: string): Promise<StatusAcknowledgement> {
    return this.request('DELETE', `${accountPath(accountId)}/api_keys/${encodeURIComponent(key)}`);
  }

  /** Creates or replaces content records by id (the content service owns them). */
  upsertContent(accountId: string, kind: ContentKind, records: object[]): Promise<UpsertResult> {
    return this.request('PUT', `${accountPath(accountId)}/${kind}`, records);
  }

  /** Replaces the account's ingestion filtering rules (omitted lists become empty); resolves to the stored rules. */
  setIngestionFilteringRules(accountId: string, rules: IngestionFilteringRulesInput): Promise<IngestionFilteringRules> {
    return this.request('PUT', `${accountPath(accountId)}/ingestion_filtering_rules`, rules);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new Error(`cannot reach ${this.baseUrl}: ${describeNetworkError(error)}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new AdminApiError(response.status, problemDetail(text, response.statusText));
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }
}

function accountPath(accountId: string): string {
  return `/admin/v1/accounts/${encodeURIComponent(accountId)}`;
}
