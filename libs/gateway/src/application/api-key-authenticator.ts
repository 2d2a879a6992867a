import { classifyFailure, withDeadline } from '@guidepost/platform-failures';
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
 * How long a lookup may take before a key known from earlier is trusted again instead: PostgreSQL
 * frozen or unreachable must not stall every request of known clients (a key revoked meanwhile is
 * refused again once the database answers: the watcher tells every replica).
 */
export const STALE_KEY_LOOKUP_WAIT_MS = 1_000;

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
    const stale = this.cache.getStale(key);
    const lookup = this.lookup.findActive(key);
    const found =
      stale === undefined
        ? await lookup
        : await withDeadline(lookup, STALE_KEY_LOOKUP_WAIT_MS, 'the API key store').catch((error: unknown) => staleOnOutage(error, stale));
    // A key the store no longer knows (revoked) must not be served stale later either.
    if (found === undefined) this.cache.delete(key);
    else this.cache.set(key, found);
    return found;
  }
}

/** The key known from earlier while the store is unavailable; any other failure is the caller's. */
function staleOnOutage(error: unknown, stale: ActiveApiKey): ActiveApiKey {
  if (classifyFailure(error) !== 'transient') throw error;
  return stale;
}
