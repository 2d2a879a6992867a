import { ANALYTICS_FIELDS, ANALYTICS_VALUE_PARSERS, type AnalyticsFieldDefinition } from '@guidepost/contracts-http';
import { MIGRATION_7_STORED_FIELDS } from './clickhouse-migrations';

describe('event-store migration 7', () => {
  it('stores each stored field of the analytics vocabulary as the vocabulary reads it', () => {
    // A stored field the vocabulary reads otherwise needs a migration of its own: the stored rows hold what migration 7 computed.
    const fields: [string, AnalyticsFieldDefinition][] = Object.entries(ANALYTICS_FIELDS);
    const stored = fields.flatMap(([field, { reads }]) =>
      'keys' in reads && reads.stored ? [[field, { keys: reads.keys, parse: reads.parse }]] : [],
    );
    const migrated = Object.entries(MIGRATION_7_STORED_FIELDS).map(([field, { keys, parse }]) => [field, { keys, parse }]);
    expect(Object.fromEntries(migrated)).toEqual(Object.fromEntries(stored));
    for (const { parse } of Object.values(MIGRATION_7_STORED_FIELDS)) {
      if (parse !== undefined) expect(Object.keys(ANALYTICS_VALUE_PARSERS)).toContain(parse);
    }
  });
});
