import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { type ChdbHttpServer, startChdbHttpServer } from './chdb-http-server';

// The real front on a free port, driven by the real @clickhouse/client.

/** Strings that the client escapes in query parameters and JSON escapes in rows. */
const NASTY = [
  'tab\there',
  'line\nbreak and\r\ncarriage return',
  `single ' and double " quotes`,
  'back\\slash, \\t and \\n as text',
  '\\N',
  'NULL',
  'unicode é 中文 😀 \u2028',
  '',
  "all\t\n\\'\r at once",
  "['looks', 'like', 'an array']",
];

let dataDir: string;
let server: ChdbHttpServer;
let client: ClickHouseClient;
const logged: string[] = [];
const clients: ClickHouseClient[] = [];

function connect(options: Parameters<typeof createClient>[0] = {}): ClickHouseClient {
  // The client logs every failed request; the failures here are on purpose.
  const connected = createClient({ url: server.url, log: { level: ClickHouseLogLevel.OFF }, ...options });
  clients.push(connected);
  return connected;
}

async function rows<T>(query: string, query_params: Record<string, unknown> = {}, on = client): Promise<T[]> {
  const result = await on.query({ query, query_params, format: 'JSONEachRow' });
  return result.json<T>();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'guidepost-chdb-http-'));
  server = await startChdbHttpServer({ host: '127.0.0.1', port: 0, path: dataDir, log: (line) => logged.push(line) });
  client = connect();
  await client.command({ query: 'CREATE TABLE texts (id UInt32, text String, note Nullable(String)) ENGINE = MergeTree ORDER BY id' });
});

afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()));
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  logged.length = 0;
});

describe('chdb HTTP front', () => {
  it('answers pings, through the client and on /ping', async () => {
    expect(await client.ping()).toEqual({ success: true });
    expect(await client.ping({ select: true })).toEqual({ success: true });
    const response = await fetch(`${server.url}/ping`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('Ok.\n');
  });

  it('stores and returns nasty strings exactly, and matches them with String, Array(String) and Nullable parameters', async () => {
    await client.insert({
      table: 'texts',
      format: 'JSONEachRow',
      values: [...NASTY.map((text, index) => ({ id: index, text, note: text })), { id: 100, text: 'without note', note: null }],
    });

    expect(await rows('SELECT id, text, note FROM texts WHERE id < 100 ORDER BY id')).toEqual(
      NASTY.map((text, id) => ({ id, text, note: text })),
    );
    for (const [id, text] of NASTY.entries()) {
      expect(await rows('SELECT id FROM texts WHERE text = {text:String}', { text })).toEqual([{ id }]);
    }
    expect(await rows('SELECT count() AS n FROM texts WHERE text IN {texts:Array(String)}', { texts: NASTY })).toEqual([
      { n: NASTY.length },
    ]);
    expect(await rows('SELECT {texts:Array(String)} AS texts', { texts: NASTY })).toEqual([{ texts: NASTY }]);
    expect(await rows('SELECT id FROM texts WHERE note IS NULL')).toEqual([{ id: 100 }]);
    expect(await rows('SELECT {note:Nullable(String)} AS note', { note: null })).toEqual([{ note: null }]);
    expect(await rows('SELECT {note:Nullable(String)} AS note', { note: '\\N' })).toEqual([{ note: '\\N' }]);
  });

  it('raises the server error as a ClickHouseError with its code and type, and logs it in one line', async () => {
    await expect(client.query({ query: 'SELEKT 1', query_id: 'bad-sql' })).rejects.toMatchObject({ code: '62', type: 'SYNTAX_ERROR' });
    await expect(client.command({ query: 'SELECT * FROM no_such_table' })).rejects.toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' });
    await expect(rows('SELECT {n:UInt8} AS n', { n: 'many' })).rejects.toMatchObject({ code: '457', type: 'BAD_QUERY_PARAMETER' });
    expect(logged).toHaveLength(3);
    expect(logged[0]).toMatch(/ query bad-sql failed \(500\): Code: 62\. DB::Exception: .*SYNTAX_ERROR.* -- SELEKT 1 FORMAT JSON$/);
  });

  it('runs in the database the client names, with its settings, neither of which outlives the request', async () => {
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS other' });
    const inOther = connect({ database: 'other', clickhouse_settings: { max_partitions_per_insert_block: '7' } });
    expect(await rows("SELECT currentDatabase() AS db, getSetting('max_partitions_per_insert_block') AS max", {}, inOther)).toEqual([
      { db: 'other', max: 7 },
    ]);
    expect(await rows("SELECT currentDatabase() AS db, getSetting('max_partitions_per_insert_block') AS max")).toEqual([
      { db: 'default', max: 100 },
    ]);
    await expect(rows('SELECT {leftover:String} AS value')).rejects.toMatchObject({ type: 'UNKNOWN_QUERY_PARAMETER' });
  });

  it('keeps the answers of concurrent clients apart', async () => {
    const [first, second] = [connect(), connect({ database: 'other' })];
    await first.command({ query: 'CREATE DATABASE IF NOT EXISTS other' });
    const asks = Array.from({ length: 40 }, (_, index) => {
      const on = index % 2 === 0 ? first : second;
      return rows<{ value: string; db: string }>(
        'SELECT {value:String} AS value, currentDatabase() AS db',
        { value: `v${index}\t${NASTY[index % NASTY.length]}` },
        on,
      );
    });
    const answers = await Promise.all(asks);
    answers.forEach((answer, index) => {
      expect(answer).toEqual([{ value: `v${index}\t${NASTY[index % NASTY.length]}`, db: index % 2 === 0 ? 'default' : 'other' }]);
    });
  });

  it('answers a short statement while a long one runs, as a server does', async () => {
    const finished: string[] = [];
    const long = client.query({ query: 'SELECT sleep(1) AS slept', format: 'JSONEachRow' }).then(() => finished.push('long'));
    await delay(100);
    expect(await rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    finished.push('short');
    await long;
    expect(finished).toEqual(['short', 'long']);
  });

  /** A statement that runs for minutes unless stopped. */
  const ENDLESS = 'SELECT count() AS n FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 3';

  /** The engine's statements tagged with the request's query id (how the front finds them). */
  async function engineStatementsOf(queryId: string): Promise<unknown[]> {
    return rows("SELECT query_id FROM system.processes WHERE Settings['log_comment'] = {id:String}", { id: queryId });
  }

  it('stops a running statement on KILL QUERY WHERE query_id = ... SYNC, answering once the engine has stopped it', async () => {
    const running = client.query({ query: ENDLESS, query_id: 'endless-1', format: 'JSONEachRow' }).catch((error: unknown) => error);
    while ((await engineStatementsOf('endless-1')).length === 0) await delay(20);
    await client.command({ query: 'KILL QUERY WHERE query_id = {id:String} SYNC', query_params: { id: 'endless-1' } });
    expect(await engineStatementsOf('endless-1')).toEqual([]);
    expect(await running).toMatchObject({ code: '394', type: 'QUERY_WAS_CANCELLED' });
  });

  it('fails a statement still waiting for the engine on its KILL, without waiting for the statements before it', async () => {
    const busy = Array.from({ length: 4 }, (_, index) =>
      client.query({ query: ENDLESS, query_id: `busy-${index}`, format: 'JSONEachRow' }).catch((error: unknown) => error),
    );
    // The four take every statement slot as they arrive; the fifth waits for one.
    await delay(200);
    const waiting = client.query({ query: 'SELECT 1', query_id: 'waiting-1', format: 'JSONEachRow' }).catch((error: unknown) => error);
    await delay(100);
    await client.command({ query: "KILL QUERY WHERE query_id = 'waiting-1' SYNC" });
    expect(await waiting).toMatchObject({ code: '394' });
    await Promise.all(
      Array.from({ length: 4 }, (_, index) => client.command({ query: `KILL QUERY WHERE query_id = 'busy-${index}' SYNC` })),
    );
    for (const stopped of await Promise.all(busy)) expect(stopped).toMatchObject({ code: '394' });
  });

  it('drops a statement whose client went away while it waited for the engine', async () => {
    const busy = Array.from({ length: 4 }, (_, index) =>
      client.query({ query: ENDLESS, query_id: `hold-${index}`, format: 'JSONEachRow' }).catch((error: unknown) => error),
    );
    await delay(200);
    const gone = new AbortController();
    const insert = client
      .insert({
        table: 'texts',
        format: 'JSONEachRow',
        values: [{ id: 300, text: 'asked for by a client that left', note: null }],
        abort_signal: gone.signal,
      })
      .catch((error: unknown) => error);
    await delay(100);
    gone.abort();
    expect(await insert).toBeInstanceOf(Error);
    await Promise.all(
      Array.from({ length: 4 }, (_, index) => client.command({ query: `KILL QUERY WHERE query_id = 'hold-${index}' SYNC` })),
    );
    await Promise.all(busy);
    // The freed slots are not handed to the statement nobody waits for any more.
    await delay(300);
    expect(await rows('SELECT count() AS n FROM texts WHERE id = 300')).toEqual([{ n: 0 }]);
  });

  it('stops a running read whose client went away', async () => {
    const gone = new AbortController();
    const read = client
      .query({ query: ENDLESS, query_id: 'left-1', format: 'JSONEachRow', abort_signal: gone.signal })
      .catch((error: unknown) => error);
    while ((await engineStatementsOf('left-1')).length === 0) await delay(20);
    gone.abort();
    expect(await read).toBeInstanceOf(Error);
    const deadline = Date.now() + 5_000;
    while ((await engineStatementsOf('left-1')).length > 0 && Date.now() < deadline) await delay(50);
    expect(await engineStatementsOf('left-1')).toEqual([]);
  });

  it('takes compressed request bodies and answers a client that asks for compressed responses', async () => {
    const compressing = connect({ compression: { request: true, response: true } });
    await compressing.insert({ table: 'texts', format: 'JSONEachRow', values: [{ id: 200, text: 'gzipped\ttext', note: null }] });
    expect(await rows('SELECT text FROM texts WHERE id = 200', {}, compressing)).toEqual([{ text: 'gzipped\ttext' }]);
  });

  it('answers 413 with a ClickHouse error for a body over the limit, and serves the next request', async () => {
    // A second front on the same data folder (one engine per process), with a small limit.
    const small = await startChdbHttpServer({
      host: '127.0.0.1',
      port: 0,
      path: dataDir,
      maxBodyBytes: 1_000,
      log: (line) => logged.push(line),
    });
    try {
      const limited = connect({ url: small.url });
      const values = Array.from({ length: 100 }, (_, id) => ({ id: 1_000 + id, text: 'x'.repeat(50), note: null }));
      await expect(limited.insert({ table: 'texts', format: 'JSONEachRow', values })).rejects.toMatchObject({
        code: '307',
        type: 'TOO_MANY_BYTES',
      });
      expect(await rows('SELECT count() AS n FROM texts WHERE id >= 1000', {}, limited)).toEqual([{ n: 0 }]);
    } finally {
      await small.close();
    }
  });

  it('refuses what it does not serve with a ClickHouse error', async () => {
    await expect(client.query({ query: 'SELECT 1', session_id: 'one' })).rejects.toMatchObject({ code: '48', type: 'NOT_IMPLEMENTED' });
    const response = await fetch(`${server.url}/play`);
    expect(response.status).toBe(404);
    expect(response.headers.get('x-clickhouse-exception-code')).toBe('48');
    const empty = await fetch(`${server.url}/`, { method: 'POST', body: '' });
    expect([empty.status, await empty.text()]).toEqual([400, 'Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)\n']);
    const notGzip = await fetch(`${server.url}/`, { method: 'POST', body: 'SELECT 1', headers: { 'Content-Encoding': 'gzip' } });
    expect([notGzip.status, notGzip.headers.get('x-clickhouse-exception-code')]).toEqual([400, '33']);
    const zstd = await fetch(`${server.url}/`, { method: 'POST', body: 'SELECT 1', headers: { 'Content-Encoding': 'zstd' } });
    expect([zstd.status, zstd.headers.get('x-clickhouse-exception-code')]).toEqual([400, '48']);
  });

  it('sends the format, query id and summary headers the client reads', async () => {
    const result = await client.query({ query: 'SELECT number FROM numbers(3)', format: 'JSONEachRow', query_id: 'headers-1' });
    expect(await result.json()).toEqual([{ number: 0 }, { number: 1 }, { number: 2 }]);
    expect(result.query_id).toBe('headers-1');
    expect(result.response_headers['x-clickhouse-format']).toBe('JSONEachRow');
    expect(JSON.parse(String(result.response_headers['x-clickhouse-summary']))).toMatchObject({ result_rows: '3' });
  });
});
