import { Injectable } from '@nestjs/common';
import type { Account, CreateAccountRequest, CreatedApiKey } from '@guidepost/contracts-http';
import { DomainError, notFound } from '@guidepost/platform-errors';
import { hashSecret, newAccountId, newApiKey, newApiSecret } from '../domain/credentials';
import { AccountStore, type StoredAccount } from './account-store.port';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeyStore } from './api-key-store.port';

/** The admin use cases: accounts and their API keys (the web studio's job in the hosted product). */
@Injectable()
export class AccountAdministration {
  constructor(
    private readonly accounts: AccountStore,
    private readonly apiKeys: ApiKeyStore,
    private readonly authenticator: ApiKeyAuthenticator,
  ) {}

  async createAccount(request: CreateAccountRequest): Promise<Account> {
    const id = request.id ?? newAccountId();
    const created = await this.accounts.insertIfAbsent(id, request.name);
    if (!created) throw new DomainError('conflict', `Account '${id}' already exists`);
    return toAccount(created);
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.accounts.list()).map(toAccount);
  }

  /** Issues a key; the answer is the only place the secret ever appears (only its hash is stored). */
  async createApiKey(accountId: string): Promise<CreatedApiKey> {
    await this.requireAccount(accountId);
    const secret = newApiSecret();
    const created = await this.apiKeys.insert(newApiKey(), accountId, hashSecret(secret));
    return { account_id: accountId, key: created.key, secret, created_at: created.createdAt.toISOString() };
  }

  /** Revokes a key; revoking it again is harmless. Other gateway replicas stop accepting it within their cache lifetime. */
  async revokeApiKey(accountId: string, key: string): Promise<void> {
    await this.requireAccount(accountId);
    if (!(await this.apiKeys.revoke(accountId, key))) throw notFound('API key', key);
    this.authenticator.forget(key);
  }

  private async requireAccount(accountId: string): Promise<void> {
    if (!(await this.accounts.exists(accountId))) throw notFound('Account', accountId);
  }
}

function toAccount(account: StoredAccount): Account {
  return { id: account.id, name: account.name, created_at: account.createdAt.toISOString() };
}
