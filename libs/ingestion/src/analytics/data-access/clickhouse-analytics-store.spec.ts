import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@guidepost/platform-config';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';
import { analyticsStoreCases } from './clickhouse-analytics-store.spec-cases';

describe('ClickHouseAnalyticsStore, engine in process (chdb)', () => {
  // The real engine in a temporary folder, as the standalone shape runs it.
  analyticsStoreCases(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'guidepost-analytics-'));
    const client = await createClickHouseClient(loadConfig({ GUIDEPOST_DATA_DIR: dataDir }));
    return {
      client,
      release: async () => {
        await client.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  });
});
