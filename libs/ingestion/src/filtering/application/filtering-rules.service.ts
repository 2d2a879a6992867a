import { Injectable } from '@nestjs/common';
import { type IngestionFilteringRules, NO_FILTERING } from '@guidepost/contracts-events';
import { IngestionFilteringRulesCopy } from '../data-access/ingestion-filtering-rules-copy.repository';

/**
 * How long a replica trusts its cached rules. The consumer forgets an account's rules as soon as a
 * change is stored, but in the distributed shape only the replica that consumed the change hears of
 * it: the others pick it up within this time.
 */
export const RULES_CACHE_TTL_MS = 5_000;
/** Accounts whose rules are cached at once; the least recently loaded one makes room. */
export const MAX_CACHED_ACCOUNTS = 10_000;

interface CachedRules {
  readonly rules: Promise<IngestionFilteringRules>;
  readonly expiresAt: number;
}

/**
 * The ingestion filtering rules every intake of this service applies (track, event imports). Track is
 * a hot path, so each account's rules are read once per few seconds, not once per event; concurrent
 * requests of an account share one read.
 */
@Injectable()
export class FilteringRules {
  private readonly cache = new Map<string, CachedRules>();

  constructor(private readonly repository: IngestionFilteringRulesCopy) {}

  /** The account's rules; `NO_FILTERING` for an account that never set any. */
  rulesFor(accountId: string): Promise<IngestionFilteringRules> {
    const now = Date.now();
    const cached = this.cache.get(accountId);
    if (cached && cached.expiresAt > now) return cached.rules;
    return this.load(accountId, now);
  }

  /** Called once a change of the account's rules is stored: the next request reads them again. */
  forget(accountId: string): void {
    this.cache.delete(accountId);
  }

  private load(accountId: string, now: number): Promise<IngestionFilteringRules> {
    const rules = this.repository.storedRulesOf(accountId).then((stored) => stored ?? NO_FILTERING);
    const entry: CachedRules = { rules, expiresAt: now + RULES_CACHE_TTL_MS };
    this.cache.delete(accountId);
    if (this.cache.size >= MAX_CACHED_ACCOUNTS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(accountId, entry);
    // A failed read is not cached: the next request tries again.
    rules.catch(() => {
      if (this.cache.get(accountId) === entry) this.cache.delete(accountId);
    });
    return rules;
  }
}
