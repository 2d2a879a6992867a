/** An API key that may authenticate: not revoked. The secret is known only by its SHA-256. */
export interface ActiveApiKey {
  readonly key: string;
  readonly accountId: string;
  readonly secretSha256: Buffer;
}

/** Finds active API keys; the data-access layer implements it over `gateway.api_keys`. */
export abstract class ApiKeyLookup {
  abstract findActive(key: string): Promise<ActiveApiKey | undefined>;
}
