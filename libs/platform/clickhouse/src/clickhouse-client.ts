import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ClickHouseClient, type ClickHouseClientConfigOptions, createClient } from '@clickhouse/client';
import type { AppConfig } from '@guidepost/platform-config';

/**
 * The process's one ClickHouse client: over HTTP to `GUIDEPOST_CLICKHOUSE_URL` (credentials in the
 * URL, database in its path), else the ClickHouse engine in process (chdb) with its data in
 * `<dataDir>/clickhouse`. The same SQL runs on both. chdb binds one data folder per process, hence one
 * client. It is loaded only when used, so hosts talking to a server never map the engine.
 */
export async function createClickHouseClient(config: AppConfig): Promise<ClickHouseClient> {
  if (config.clickhouseUrl) return createClient({ url: config.clickhouseUrl, application: 'guidepost' });
  const path = join(config.dataDir, 'clickhouse');
  await mkdir(path, { recursive: true });
  const { createChdbConnection } = await import('chdb/connection');
  // chdb implements the client's connection contract, typed against its own copy of the declarations
  // (`@clickhouse/client-common`), which TypeScript does not identify with the client's bundled ones.
  const connection = createChdbConnection({ path }) as unknown as NonNullable<ClickHouseClientConfigOptions['connection']>;
  return createClient({ connection });
}
