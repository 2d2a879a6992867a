import { randomUUID } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { loadConfig } from '@guidepost/platform-config';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';
import { analyticsStoreCases } from './clickhouse-analytics-store.spec-cases';

describe('ClickHouseAnalyticsStore over HTTP (GUIDEPOST_CLICKHOUSE_URL)', () => {
  // The server the distributed shape uses, in a database of this run's own.
  analyticsStoreCases(async () => {
    const serverUrl = new URL(process.env['GUIDEPOST_CLICKHOUSE_URL'] ?? '');
    const database = `guidepost_test_${randomUUID().replace(/-/g, '')}`;
    const admin = createClient({ url: serverUrl });
    await admin.command({ query: `CREATE DATABASE ${database}` });
    const client = await createClickHouseClient(loadConfig({ GUIDEPOST_CLICKHOUSE_URL: new URL(`/${database}`, serverUrl).toString() }));
    return {
      client,
      release: async () => {
        await client.close();
        await admin.command({ query: `DROP DATABASE ${database}` });
        await admin.close();
      },
    };
  });
});
