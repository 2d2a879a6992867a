import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { loadConfig } from '@guidepost/platform-config';
import { createClickHouseClient } from './clickhouse-client';

const MEBIBYTE = 1024 * 1024;

describe('createClickHouseClient, engine in process', () => {
  let dataDir: string;
  let client: ClickHouseClient;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'guidepost-engine-'));
    client = await createClickHouseClient(loadConfig({ GUIDEPOST_DATA_DIR: dataDir, GUIDEPOST_CLICKHOUSE_ENGINE_MEMORY_BYTES: String(300 * MEBIBYTE) }));
  });

  afterAll(async () => {
    await client.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts the engine with the configured memory limit and small caches, not the defaults sized for a machine of its own', async () => {
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
  });

  it('reads a table on several threads under that memory limit (the engine would otherwise keep a query to one thread below 1 GiB free per thread)', async () => {
    await client.command({ query: 'CREATE TABLE numbers_table (n UInt64) ENGINE = MergeTree ORDER BY n' });
    await client.command({ query: 'INSERT INTO numbers_table SELECT number FROM numbers(1000000)' });
    const result = await client.query({ query: 'EXPLAIN PIPELINE SELECT sum(n) FROM numbers_table SETTINGS max_threads = 2', format: 'TabSeparatedRaw' });
    const readers = (await result.text()).split('\n').find((line) => line.includes('MergeTreeSelect'));
    expect(readers).toMatch(/algorithm: Thread\) × 2\b/);
  });
});
