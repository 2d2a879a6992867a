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
  const [{ Session }, { createChdbConnection }] = await Promise.all([import('chdb'), import('chdb/connection')]);
  // The first session of a data folder starts the engine, which every later connection to it shares:
  // opened with the engine's memory settings, it configures the connection made after it.
  const configuring = new Session(path, { connectionArgs: engineArguments(config.clickhouseEngineMemoryBytes) });
  // chdb implements the client's connection contract, typed against its own copy of the declarations
  // (`@clickhouse/client-common`), which TypeScript does not identify with the client's bundled ones.
  const connection = createChdbConnection({ path }) as unknown as NonNullable<ClickHouseClientConfigOptions['connection']>;
  configuring.close();
  // A query setting, so given with every statement: the engine's arguments set those of the configuring session only.
  return createClient({ connection, clickhouse_settings: { max_threads_min_free_memory_per_thread: String(MIN_FREE_MEMORY_PER_QUERY_THREAD_BYTES) } });
}

/** Each of the engine's caches that would otherwise grow to 5 GiB (marks, primary index): what a query reads often. */
const ENGINE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The free engine memory a query needs per thread before it may use one more. The engine's default
 * (1 GiB) is sized for a server of its own: under the few hundred MiB the engine in process is given,
 * it ran every query on one thread, and analytics over 10 M events took 2.5 times as long as with a
 * thread per core (docs/performance.md, "Analytics"). A reading thread holds a few blocks of 65,536 rows.
 */
const MIN_FREE_MEMORY_PER_QUERY_THREAD_BYTES = 64 * 1024 * 1024;

/**
 * The in-process engine's memory, set rather than left to server defaults sized for a machine of its
 * own (90 % of RAM for queries, 5 GiB caches): `memoryBytes` for queries and caches together (a query
 * that would pass it fails instead of growing the process), small mark and index caches, no cache of
 * uncompressed blocks and no page cache. docs/performance.md says what a standalone process then holds.
 */
function engineArguments(memoryBytes: number): string[] {
  return [
    `--max_server_memory_usage=${memoryBytes}`,
    `--mark_cache_size=${ENGINE_CACHE_BYTES}`,
    `--index_mark_cache_size=${ENGINE_CACHE_BYTES}`,
    `--primary_index_cache_size=${ENGINE_CACHE_BYTES}`,
    `--query_condition_cache_size=${ENGINE_CACHE_BYTES / 2}`,
    '--uncompressed_cache_size=0',
    '--page_cache_max_size=0',
  ];
}
