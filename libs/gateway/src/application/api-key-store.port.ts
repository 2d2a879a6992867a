/** A key just issued; its secret is known only by its SHA-256 from then on. */
export interface IssuedApiKey {
  readonly key: string;
  readonly createdAt: Date;
}

/** Issues and revokes API keys; the data-access layer implements it over `gateway.api_keys`. */
export abstract class ApiKeyStore {
  abstract insert(key: string, accountId: string, secretSha256: Buffer): Promise<IssuedApiKey>;
  /** Marks the account's key revoked (keeping the first revocation time); false when the account has no such key. */
  abstract revoke(accountId: string, key: string): Promise<boolean>;
}
