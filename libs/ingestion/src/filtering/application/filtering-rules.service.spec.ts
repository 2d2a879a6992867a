import { type IngestionFilteringRules, NO_FILTERING } from '@guidepost/contracts-events';
import type { IngestionFilteringRulesCopy } from '../data-access/ingestion-filtering-rules-copy.repository';
import { FilteringRules, MAX_CACHED_ACCOUNTS, RULES_CACHE_TTL_MS } from './filtering-rules.service';

const DENY_SPAM: IngestionFilteringRules = { mode: 'deny', eventNames: ['spam'], userProperties: [], groupProperties: [] };
const ALLOW_SIGNUP: IngestionFilteringRules = { mode: 'allow', eventNames: ['signup'], userProperties: [], groupProperties: [] };

function setUp(stored: Map<string, IngestionFilteringRules> = new Map([['acme', DENY_SPAM]])) {
  const find = jest.fn((accountId: string) => Promise.resolve(stored.get(accountId) ?? null));
  const rules = new FilteringRules({ storedRulesOf: find } as unknown as IngestionFilteringRulesCopy);
  return { rules, find, stored };
}

describe('FilteringRules', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('gives an account without rules NO_FILTERING', async () => {
    const { rules } = setUp();
    await expect(rules.rulesFor('newcomer')).resolves.toBe(NO_FILTERING);
  });

  it('reads an account once while its rules are fresh, and again once they are stale', async () => {
    const { rules, find, stored } = setUp();
    await expect(rules.rulesFor('acme')).resolves.toEqual(DENY_SPAM);
    stored.set('acme', ALLOW_SIGNUP);
    jest.advanceTimersByTime(RULES_CACHE_TTL_MS - 1);
    await expect(rules.rulesFor('acme')).resolves.toEqual(DENY_SPAM);
    expect(find).toHaveBeenCalledTimes(1);

    jest.advanceTimersByTime(1);
    await expect(rules.rulesFor('acme')).resolves.toEqual(ALLOW_SIGNUP);
    expect(find).toHaveBeenCalledTimes(2);
  });

  it('shares one read between concurrent requests of an account', async () => {
    const { rules, find } = setUp();
    await Promise.all([rules.rulesFor('acme'), rules.rulesFor('acme'), rules.rulesFor('acme')]);
    expect(find).toHaveBeenCalledTimes(1);
  });

  it('reads the rules again at once after forget (a change was stored)', async () => {
    const { rules, stored } = setUp();
    await rules.rulesFor('acme');
    stored.set('acme', ALLOW_SIGNUP);
    rules.forget('acme');
    await expect(rules.rulesFor('acme')).resolves.toEqual(ALLOW_SIGNUP);
  });

  it('does not cache a failed read', async () => {
    const { rules, find } = setUp();
    find.mockRejectedValueOnce(new Error('database down'));
    await expect(rules.rulesFor('acme')).rejects.toThrow('database down');
    await expect(rules.rulesFor('acme')).resolves.toEqual(DENY_SPAM);
  });

  it('keeps at most MAX_CACHED_ACCOUNTS accounts, dropping the least recently loaded', async () => {
    const { rules, find } = setUp();
    for (let index = 0; index <= MAX_CACHED_ACCOUNTS; index += 1) await rules.rulesFor(`account-${index}`);
    expect(find).toHaveBeenCalledTimes(MAX_CACHED_ACCOUNTS + 1);
    await rules.rulesFor(`account-${MAX_CACHED_ACCOUNTS}`);
    expect(find).toHaveBeenCalledTimes(MAX_CACHED_ACCOUNTS + 1);
    await rules.rulesFor('account-0');
    expect(find).toHaveBeenCalledTimes(MAX_CACHED_ACCOUNTS + 2);
  });
});
