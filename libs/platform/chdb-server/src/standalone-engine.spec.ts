import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { type ChdbHttpServer, startChdbHttpServer } from './chdb-http-server';

// The front as the standalone host's engine process runs it: with a memory budget and a password.

const MEBIBYTE = 1024 * 1024;
const PASSWORD = 'only-the-host-knows';

let dataDir: string;
let server: ChdbHttpServer;
const clients: ClickHouseClient[] = [];

function connect(password: string | undefined): ClickHouseClient {
  const url = new URL(server.url);
  if (password !== undefined) [url.username, url.password] = ['default', password];
  // The client logs every failed request; the refusals here are on purpose.
  const connected = createClient({ url, log: { level: ClickHouseLogLevel.OFF } });
  clients.push(connected);
  return connected;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'guidepost-engine-'));
  server = await startChdbHttpServer({
    host: '127.0.0.1',
    port: 0,
    path: dataDir,
    memoryBytes: 300 * MEBIBYTE,
    password: PASSWORD,
    log: () => undefined,
  });
});

afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()));
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('chdb HTTP front with a memory budget and a password', () => {
  it('starts the engine with the budget as its memory limit and small caches, not the defaults sized for a machine of its own', async () => {
    const result = await connect(PASSWORD).query({
      query: `SELECT name, value FROM system.server_settings
               WHERE name IN ('max_server_memory_usage', 'mark_cache_size', 'primary_index_cache_size', 'uncompressed_cache_size')`,
      format: 'JSONEachRow',
    });
    const settings = Object.fromEntries(
      (await result.json<{ name: string; value: string }>()).map(({ name, value }) => [name, Number(value)]),
    );
    expect(settings).toEqual({
      max_server_memory_usage: 300 * MEBIBYTE,
      mark_cache_size: 64 * MEBIBYTE,
      primary_index_cache_size: 64 * MEBIBYTE,
      uncompressed_cache_size: 0,
    });
  });

  it('reads a table on several threads under that budget (the engine would otherwise keep a query to one thread below 1 GiB free per thread)', async () => {
    const client = connect(PASSWORD);
    await client.command({ query: 'CREATE TABLE numbers_table (n UInt64) ENGINE = MergeTree ORDER BY n' });
    await client.command({ query: 'INSERT INTO numbers_table SELECT number FROM numbers(1000000)' });
    const result = await client.query({
      query: 'EXPLAIN PIPELINE SELECT sum(n) FROM numbers_table SETTINGS max_threads = 2',
      format: 'TabSeparatedRaw',
    });
    const readers = (await result.text()).split('\n').find((line) => line.includes('MergeTreeSelect'));
    expect(readers).toMatch(/algorithm: Thread\) × 2\b/);
  });

  it('refuses a statement without the password or with another one, as the server does (516), and answers pings to anybody', async () => {
    for (const password of [undefined, 'guessed']) {
      await expect(connect(password).query({ query: 'SELECT 1' })).rejects.toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' });
    }
    expect(await connect(undefined).ping()).toEqual({ success: true });
    const withKeyHeader = await fetch(`${server.url}/?query=SELECT%2042`, { headers: { 'X-ClickHouse-Key': PASSWORD } });
    expect([withKeyHeader.status, await withKeyHeader.text()]).toEqual([200, '42\n']);
  });
});
