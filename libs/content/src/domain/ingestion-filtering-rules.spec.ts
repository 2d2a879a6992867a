import { defaultFilteringRules, filteringRulesChange, filteringRulesOf, toPublicFilteringRules } from './ingestion-filtering-rules';

const now = new Date('2024-06-01T12:00:00.000Z');

describe('ingestion filtering rules', () => {
  it('defaults to deny mode with empty lists (nothing dropped) and no update time', () => {
    expect(toPublicFilteringRules(defaultFilteringRules('acme'))).toEqual({
      mode: 'deny',
      event_names: [],
      user_properties: [],
      group_properties: [],
      updated_at: null,
    });
  });

  it('treats omitted lists as empty and keeps repeated names once', () => {
    const rules = filteringRulesOf('acme', { mode: 'allow', event_names: ['signup', 'login', 'signup'] }, now);
    expect(toPublicFilteringRules(rules)).toEqual({
      mode: 'allow',
      event_names: ['signup', 'login'],
      user_properties: [],
      group_properties: [],
      updated_at: '2024-06-01T12:00:00.000Z',
    });
  });

  it('announces the whole rule set of the account, so a consumer can replace its copy', () => {
    const rules = filteringRulesOf('acme', { mode: 'deny', user_properties: ['email'], group_properties: ['plan'] }, now);
    expect(filteringRulesChange(rules)).toEqual({
      accountId: 'acme',
      mode: 'deny',
      eventNames: [],
      userProperties: ['email'],
      groupProperties: ['plan'],
      updatedAt: '2024-06-01T12:00:00.000Z',
    });
  });
});
