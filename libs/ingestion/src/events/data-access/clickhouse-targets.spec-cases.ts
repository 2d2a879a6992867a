import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { loadConfig } from '@guidepost/platform-config';
import { startChdbHttpServer } from '@guidepost/platform-chdb-server';
import { createClickHouseClient } from '@guidepost/platform-clickhouse';

/** An empty ClickHouse for the shared cases of the event store and the analytics store, and how to let go of it. */
export interface ClickHouseTarget {
  readonly client: ClickHouseClient;
  release(): Promise<void>;
}

/**
 * The real engine in a temporary folder behind its HTTP front, as the standalone shape's engine
 * process runs it (with its memory budget), served from this process.
 */
export async function chdbClickHouse(folderPrefix: string): Promise<ClickHouseTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), folderPrefix));
  const defaults = loadConfig({});
  const front = await startChdbHttpServer({ host: '127.0.0.1', port: 0, path: dataDir, memoryBytes: defaults.clickhouseEngineMemoryBytes });
  const client = createClickHouseClient(defaults.with({ clickhouseUrl: front.url }));
  return {
    client,
    release: async () => {
      await client.close();
      await front.close();
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
  const client = createClickHouseClient(loadConfig({ GUIDEPOST_CLICKHOUSE_URL: new URL(`/${database}`, serverUrl).toString() }));
  return {
    client,
    release: async () => {
      await client.close();
      await admin.command({ query: `DROP DATABASE ${database}` });
      await admin.close();
    },
  };
}
