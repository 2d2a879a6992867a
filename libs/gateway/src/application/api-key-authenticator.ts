import { isWellFormedApiKey, secretMatches } from '../domain/credentials';
import { ExpiringCache } from '../domain/expiring-cache';
import type { ActiveApiKey, ApiKeyLookup } from './api-key-lookup.port';

/**
 * How long a key found in the database is trusted without asking again, and how many are kept. A
 * revocation does not wait for it: the replica that revokes a key forgets it at once, and every other
 * replica within half a second (`RevokedKeyWatcher`).
 */
export const API_KEY_CACHE = { ttlMs: 30_000, maxEntries: 10_000 } as const;

/**
 * Checks an API key and secret, caching keys that were found so that authentication does not query
 * PostgreSQL on every request. Only found keys are cached: unknown keys are never stored, so a flood
 * of made-up keys cannot grow memory (and malformed ones never reach the database).
 */
export class ApiKeyAuthenticator {
  constructor(
    private readonly lookup: ApiKeyLookup,
    private readonly cache = new ExpiringCache<string, ActiveApiKey>(API_KEY_CACHE),
  ) {}

  /** The key's record when it is active and the secret is right; undefined otherwise, whichever was wrong. */
  async authenticate(key: string, secret: string): Promise<ActiveApiKey | undefined> {
    const found = isWellFormedApiKey(key) ? await this.find(key) : undefined;
    return found !== undefined && secretMatches(secret, found.secretSha256) ? found : undefined;
  }

  /** Drops a key from the cache, e.g. right after it was revoked. */
  forget(key: string): void {
    this.cache.delete(key);
  }

  private async find(key: string): Promise<ActiveApiKey | undefined> {
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const found = await this.lookup.findActive(key);
    if (found !== undefined) this.cache.set(key, found);
    return found;
  }
}
