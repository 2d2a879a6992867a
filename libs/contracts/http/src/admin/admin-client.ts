import { describeNetworkError, problemDetail } from '../http-failure';
import type { StatusAcknowledgement } from '../schemas/common.schema';
import type { IngestionFilteringRules, IngestionFilteringRulesInput } from '../schemas/content.schema';
import type {
  Account,
  ContentKind,
  CreateAccountRequest,
  CreatedApiKey,
  DeadLetter,
  DeadLetterBulkReplay,
  DeadLetterFilter,
  DeadLetterListOptions,
  DeadLetterPage,
  DeadLetterSummary,
  UpsertResult,
} from './admin.schema';

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
 * CLI and by anything that seeds accounts and content (demo, tests). Requests go through `send`: the
 * network's `fetch`, or another that answers the same way (the standalone demo seed's, in process).
 */
export class AdminClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly send: typeof fetch = fetch,
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

  /** A page of the service's dead letters, newest first; `next_cursor` fetches the next. */
  listDeadLetters(service: string, options: DeadLetterListOptions = {}): Promise<DeadLetterPage> {
    const query = new URLSearchParams();
    for (const name of ['topic', 'group', 'status', 'cursor'] as const) {
      const value = options[name];
      if (value !== undefined) query.set(name, value);
    }
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const search = query.size > 0 ? `?${query.toString()}` : '';
    return this.request('GET', `${deadLettersPath(service)}${search}`);
  }

  /** One dead letter with its payload and headers. */
  getDeadLetter(service: string, id: string): Promise<DeadLetter> {
    return this.request('GET', `${deadLettersPath(service)}/${encodeURIComponent(id)}`);
  }

  /** Delivers a dead letter again (to the group that gave it up, or through the relay); a replayed one is left as it is. */
  replayDeadLetter(service: string, id: string): Promise<DeadLetterSummary> {
    return this.request('POST', `${deadLettersPath(service)}/${encodeURIComponent(id)}/replay`);
  }

  /** Replays every waiting dead letter of the service that matches the filter (all of them without one). */
  replayDeadLetters(service: string, filter: DeadLetterFilter = {}): Promise<DeadLetterBulkReplay> {
    const body: DeadLetterFilter = {
      ...(filter.topic === undefined ? {} : { topic: filter.topic }),
      ...(filter.group === undefined ? {} : { group: filter.group }),
    };
    return this.request('POST', `${deadLettersPath(service)}/replay`, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.send(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new Error(`cannot reach ${this.baseUrl}: ${describeNetworkError(error)}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new AdminApiError(response.status, problemDetail(text, response.statusText));
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }
}

function deadLettersPath(service: string): string {
  return `/admin/v1/dead-letters/${encodeURIComponent(service)}`;
}

function accountPath(accountId: string): string {
  return `/admin/v1/accounts/${encodeURIComponent(accountId)}`;
}
