import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@guidepost/platform-config';
import { createClickHouseClient } from './clickhouse-client';

const MEBIBYTE = 1024 * 1024;

describe('createClickHouseClient, engine in process', () => {
  it('starts the engine with the configured memory limit and small caches, not the defaults sized for a machine of its own', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'guidepost-engine-'));
    const client = await createClickHouseClient(loadConfig({ GUIDEPOST_DATA_DIR: dataDir, GUIDEPOST_CLICKHOUSE_ENGINE_MEMORY_BYTES: String(300 * MEBIBYTE) }));
    try {
      const result = await client.query({
        query: `SELECT name, value FROM system.server_settings
                 WHERE name IN ('max_server_memory_usage', 'mark_cache_size', 'primary_index_cache_size', 'uncompressed_cache_size')`,
        format: 'JSONEachRow',
      });
      const settings = Object.fromEntries((await result.json<{ name: string; value: string }>()).map(({ name, value }) => [name, Number(value)]));
      expect(settings).toEqual({
        max_server_memory_usage: 300 * MEBIBYTE,
        mark_cache_size: 64 * MEBIBYTE,
        primary_index_cache_size: 64 * MEBIBYTE,
        uncompressed_cache_size: 0,
      });
    } finally {
      await client.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
