import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { loadConfig } from '@guidepost/platform-config';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';

/** An empty ClickHouse for the shared cases of the event store and the analytics store, and how to let go of it. */
export interface ClickHouseTarget {
  readonly client: ClickHouseClient;
  release(): Promise<void>;
}

/** The real engine in a temporary folder, as the standalone shape runs it. */
export async function inProcessClickHouse(folderPrefix: string): Promise<ClickHouseTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), folderPrefix));
  const client = await createClickHouseClient(loadConfig({ GUIDEPOST_DATA_DIR: dataDir }));
  return {
    client,
    release: async () => {
      await client.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The server the distributed shape uses (`GUIDEPOST_CLICKHOUSE_URL`), in a database of this run's own,
 * reached as the services reach it: the database in the URL's path.
 */
export async function serverClickHouse(): Promise<ClickHouseTarget> {
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
}
