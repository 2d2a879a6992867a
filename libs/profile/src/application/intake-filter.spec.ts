import { NO_FILTERING } from '@guidepost/contracts-events';
import { MetricsRegistry } from '@guidepost/platform-observability';
import type { EntityManager } from 'typeorm';
import type { ProfileFilteringRulesCopy } from '../data-access/profile-filtering-rules-copy.repository';
import { IntakeFilter } from './intake-filter';

const denyRules = {
  mode: 'deny' as const,
  eventNames: ['svc:profile_update'],
  userProperties: ['email', 'ssn'],
  groupProperties: ['revenue'],
};
const manager = {} as EntityManager;

function filterWith(stored: typeof denyRules | null): { filter: IntakeFilter; metrics: MetricsRegistry } {
  const repository = { find: () => Promise.resolve(stored) } as unknown as ProfileFilteringRulesCopy;
  const metrics = new MetricsRegistry();
  return { filter: new IntakeFilter(repository, metrics), metrics };
}

async function filteredCount(metrics: MetricsRegistry, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.getSingleMetric('guidepost_ingestion_filtered_total')!.get();
  return metric.values.find((value) => Object.entries(labels).every(([name, label]) => value.labels[name] === label))?.value ?? 0;
}

describe('IntakeFilter', () => {
  it('gives no filtering to an account without rules', async () => {
    expect(await filterWith(null).filter.rulesOf(manager, 'acme')).toBe(NO_FILTERING);
  });

  it('counts each dropped property under its intake and kind', async () => {
    const { filter, metrics } = filterWith(denyRules);
    const rules = await filter.rulesOf(manager, 'acme');
    const kept = filter.keepProperties(
      rules,
      { kind: 'user', intake: 'import', accountId: 'acme', id: 'u-1' },
      { plan: 'pro', email: 'e', ssn: 's' },
    );
    filter.keepProperties(rules, { kind: 'group', intake: 'group_update', accountId: 'acme', id: 'g-1' }, { revenue: 1 });
    expect(kept).toEqual({ plan: 'pro' });
    expect(await filteredCount(metrics, { intake: 'import', kind: 'user_property' })).toBe(2);
    expect(await filteredCount(metrics, { intake: 'group_update', kind: 'group_property' })).toBe(1);
  });

  it('counts the events of a dropped event name, and keeps the others uncounted', async () => {
    const { filter, metrics } = filterWith(denyRules);
    expect(filter.keepsEvents(denyRules, 'profile_update', 'acme', 'svc:profile_update', 3)).toBe(false);
    expect(filter.keepsEvents(denyRules, 'profile_update', 'acme', 'signup', 5)).toBe(true);
    expect(await filteredCount(metrics, { intake: 'profile_update', kind: 'event' })).toBe(3);
  });
});
