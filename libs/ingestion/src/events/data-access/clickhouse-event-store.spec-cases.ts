import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { RecordedEvent } from '@guidepost/contracts-events';
import { migrateClickHouse } from '@guidepost/platform-clickhouse';
import { classifyFailure } from '@guidepost/platform-failures';
import { csvRecord } from '@guidepost/platform-http';
import { ExportOverMemoryBudget, type ExportQuery } from '../application/event-store.port';
import { ClickHouseEventStore, MAX_CSV_ATTRIBUTE_COLUMNS } from './clickhouse-event-store.adapter';
import { EVENT_STORE_MIGRATIONS } from './clickhouse-migrations';

/** A ClickHouse to run the cases against: a client of an empty store, and how to let go of it. */
export interface EventStoreTarget {
  readonly client: ClickHouseClient;
  release(): Promise<void>;
}

const PAGE_ROWS = 3;
const RECEIVED_AT = '2024-06-01T00:00:00.000Z';
const quiet = { log: () => undefined };
/** Background merges are scheduled every few seconds, later on a busy machine: the test waits up to 30 s for one. */
const MERGE_TEST_TIMEOUT_MS = 60_000;

/**
 * The event store's behaviour with the real migrations, against the ClickHouse that `open` gives:
 * the engine in process (`clickhouse-event-store.spec.ts`) or a server over HTTP
 * (`clickhouse-event-store.int-spec.ts`). The same cases run on both, since the same SQL must.
 */
export function eventStoreCases(open: () => Promise<EventStoreTarget>): void {
  let target: EventStoreTarget;
  let client: ClickHouseClient;
  let store: ClickHouseEventStore;
  let account = 0;
  /** Each test writes to an account of its own, so tests never see each other's events. */
  let accountId: string;

  beforeAll(async () => {
    target = await open();
    client = target.client;
    await migrateClickHouse(client, 'ingestion', EVENT_STORE_MIGRATIONS, quiet);
    store = new ClickHouseEventStore(client, { pageRows: PAGE_ROWS, historyWaitLimitMs: 5_000 });
  });

  afterAll(() => target.release());

  beforeEach(() => {
    account += 1;
    accountId = `account-${account}`;
  });

  /** Stores events of the test's account in one insert. */
  function insert(events: readonly RecordedEvent[]): Promise<void> {
    return store.insert(events.map((event) => ({ accountId, event })));
  }

  let eventNumber = 0;
  function event(fields: Partial<RecordedEvent> = {}): RecordedEvent {
    eventNumber += 1;
    return {
      eventId: `e${String(eventNumber).padStart(6, '0')}`,
      userId: 'u1',
      name: 'viewed',
      timestamp: '2024-05-01T09:30:00.000Z',
      attributes: {},
      receivedAt: RECEIVED_AT,
      ...fields,
    };
  }

  function exportQuery(fields: Partial<ExportQuery> = {}): ExportQuery {
    return {
      accountId,
      format: 'json',
      conditions: [],
      startTime: new Date('2024-01-01T00:00:00Z'),
      timeZoneMinutes: 0,
      limit: 1_000,
      offset: 0,
      receivedBy: new Date(RECEIVED_AT),
      ...fields,
    };
  }

  /** Runs an export into memory through an output that takes one chunk at a time, slowly (backpressure). */
  async function exported(fields: Partial<ExportQuery> = {}): Promise<{ text: string; count: number }> {
    const chunks: Buffer[] = [];
    const output = new Writable({
      highWaterMark: 16,
      write: (chunk: Buffer, _encoding, done) => {
        chunks.push(chunk);
        setImmediate(done);
      },
    });
    const count = await store.export(exportQuery(fields), output);
    return { text: Buffer.concat(chunks).toString('utf8'), count };
  }

  async function jsonLines(fields: Partial<ExportQuery> = {}): Promise<Record<string, unknown>[]> {
    const { text, count } = await exported(fields);
    const lines = text.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(count);
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Names of the events an export with these conditions selects, in export order. */
  async function selected(conditions: unknown[]): Promise<string[]> {
    return (await jsonLines({ conditions: conditions as ExportQuery['conditions'] })).map((line) => line['name'] as string);
  }

  it('applies each migration once', async () => {
    await migrateClickHouse(client, 'ingestion', EVENT_STORE_MIGRATIONS, quiet);
    const result = await client.query({
      query: "SELECT version, name FROM schema_migrations FINAL WHERE service = 'ingestion' ORDER BY version",
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual(EVENT_STORE_MIGRATIONS.map(({ version, name }) => ({ version, name })));
  });

  it('returns a replayed batch once, in history and in exports', async () => {
    const batch = [event({ name: 'a' }), event({ name: 'b', timestamp: '2024-05-01T10:00:00.000Z' })];
    await insert(batch);
    await insert(batch);
    expect((await store.history({ accountId, userId: 'u1', limit: 10, timeZoneMinutes: 0 })).map((e) => e.name)).toEqual(['b', 'a']);
    expect((await jsonLines()).map((line) => line['name'])).toEqual(['a', 'b']);
  });

  /** The account's stored rows as they are, without FINAL (as analytics reads them), in key order. */
  async function storedRows(): Promise<{ event_id: string; name: string; attributes: string; flow_id: string | null; user_key: string }[]> {
    const result = await client.query({
      query: `SELECT event_id, name, attributes, flow_id, toString(user_key) AS user_key FROM events
               WHERE account_id = {account:String} ORDER BY user_id, timestamp, event_id`,
      query_params: { account: accountId },
      format: 'JSONEachRow',
    });
    return result.json();
  }

  describe('an event delivered again (migration 4)', () => {
    it('is not stored again: even a read without FINAL, before any merge, sees one copy', async () => {
      const batch = [event({ name: 'a' }), event({ name: 'b', timestamp: '2024-05-01T10:00:00.000Z' })];
      await insert(batch);
      await insert(batch);
      await insert(batch);
      expect((await storedRows()).map((row) => row.name)).toEqual(['a', 'b']);
    });

    it('keeps its first copy: of a batch partly stored only the new events are stored, and a key the batch carries twice once', async () => {
      const first = event({ name: 'first', attributes: { version: 1 } });
      await insert([first]);
      const sentAgain = { ...first, name: 'sent again', attributes: { version: 2 } };
      const fresh = event({ name: 'fresh', userId: 'u2' });
      await insert([sentAgain, fresh, { ...fresh, name: 'fresh, twice' }]);
      expect((await storedRows()).map(({ name, attributes }) => ({ name, attributes }))).toEqual([
        { name: 'first', attributes: '{"version":1}' },
        { name: 'fresh', attributes: '{}' },
      ]);
    });

    it('is stored once when inserts carrying it are asked for at the same moment', async () => {
      const batch = Array.from({ length: 50 }, (_unused, index) => event({ userId: `u${index % 5}` }));
      await Promise.all(Array.from({ length: 4 }, () => insert(batch)));
      expect(await storedRows()).toHaveLength(50);
    });

    it('still tells events apart by user, timestamp and id, and gets the analytics columns computed', async () => {
      const base = event({ attributes: { flow_id: 'onboarding' } });
      await insert([
        base,
        { ...base, userId: 'u2' },
        { ...base, timestamp: '2024-05-01T09:30:00.001Z' },
        { ...base, eventId: `${base.eventId}-b` },
      ]);
      const rows = await storedRows();
      expect(rows).toHaveLength(4);
      expect(rows.map((row) => row.flow_id)).toEqual(['onboarding', 'onboarding', 'onboarding', 'onboarding']);
      expect(rows.every((row) => row.user_key !== '0')).toBe(true);
    });
  });

  it(
    'merges a month that stopped receiving events into one part, so that exact reads stop merging it again (migration 3)',
    async () => {
      const created = await client.query({ query: 'SHOW CREATE TABLE events', format: 'TabSeparatedRaw' });
      expect(await created.text()).toMatch(/min_age_to_force_merge_seconds = 600, min_age_to_force_merge_on_partition_only = 1/);
      // A large part and two small ones, which background merges alone leave apart (as they leave an import's parts).
      await client.command({
        query: `INSERT INTO events (account_id, event_id, user_id, name, timestamp, attributes, context_url, received_at)
              SELECT {account:String}, concat('bulk-', toString(number)), concat('u', toString(number % 1000)), 'viewed',
                     toDateTime64('2019-03-01 00:00:00', 3, 'UTC') + toIntervalSecond(number), '{}', NULL, now64(3)
              FROM numbers(300000)`,
        query_params: { account: accountId },
      });
      const month = { timestamp: '2019-03-20T12:00:00.000Z' };
      await insert([event(month)]);
      await insert([event({ ...month, userId: 'u2' })]);
      expect(await activePartsOf('201903')).toBeGreaterThan(1);
      // An operator's shorter delay, so that the test need not wait ten quiet minutes.
      await client.command({ query: 'ALTER TABLE events MODIFY SETTING min_age_to_force_merge_seconds = 1' });
      try {
        const deadline = Date.now() + 30_000;
        while ((await activePartsOf('201903')) > 1 && Date.now() < deadline) await sleep(200);
        expect(await activePartsOf('201903')).toBe(1);
      } finally {
        await client.command({ query: 'ALTER TABLE events MODIFY SETTING min_age_to_force_merge_seconds = 600' });
      }
      const stored = await client.query({
        query: 'SELECT count() AS events FROM events FINAL WHERE account_id = {account:String}',
        query_params: { account: accountId },
        format: 'JSONEachRow',
      });
      const [{ events }] = await stored.json<{ events: string }>();
      expect(Number(events)).toBe(300_002);
    },
    MERGE_TEST_TIMEOUT_MS,
  );

  async function activePartsOf(partition: string): Promise<number> {
    const result = await client.query({
      query:
        "SELECT count() AS parts FROM system.parts WHERE database = currentDatabase() AND table = 'events' AND partition = {partition:String} AND active",
      query_params: { partition },
      format: 'JSONEachRow',
    });
    const [{ parts }] = await result.json<{ parts: string }>();
    return Number(parts);
  }

  it('returns history newest first up to the limit, rendered in the requested zone', async () => {
    await insert([
      event({ name: 'first', timestamp: '2024-05-01T09:30:00.123Z', attributes: { plan: 'pro', seats: 3 } }),
      event({ name: 'second', timestamp: '2024-05-01T23:45:00.000Z' }),
      event({ name: 'third', timestamp: '2024-05-02T00:00:00.000Z' }),
      event({ name: 'other user', userId: 'u2' }),
    ]);
    const history = (timeZoneMinutes: number, limit = 10) => store.history({ accountId, userId: 'u1', limit, timeZoneMinutes });
    expect(await history(0)).toEqual([
      { user_id: 'u1', name: 'third', timestamp: '2024-05-02T00:00:00.000Z' },
      { user_id: 'u1', name: 'second', timestamp: '2024-05-01T23:45:00.000Z' },
      { user_id: 'u1', name: 'first', timestamp: '2024-05-01T09:30:00.123Z', attributes: { plan: 'pro', seats: 3 } },
    ]);
    expect((await history(-240)).map((e) => e.timestamp)).toEqual([
      '2024-05-01T20:00:00.000-04:00',
      '2024-05-01T19:45:00.000-04:00',
      '2024-05-01T05:30:00.123-04:00',
    ]);
    expect((await history(330, 2)).map((e) => e.timestamp)).toEqual(['2024-05-02T05:30:00.000+05:30', '2024-05-02T05:15:00.000+05:30']);
  });

  it("exports NDJSON in the table's order (by user, then time), user_id null for group events, within the range and as of the request", async () => {
    const events = [
      event({ name: 'other user, earliest', userId: 'u2', timestamp: '2024-05-01T00:00:00.000Z' }),
      event({ name: 'late', timestamp: '2024-05-03T00:00:00.000Z', attributes: { n: 1, tags: ['a'], text: 'line\nbreak "quoted" /' } }),
      event({ name: 'group', userId: '', groupId: 'g1', timestamp: '2024-05-02T00:00:00.000Z' }),
      event({ name: 'before range', timestamp: '2023-12-31T23:59:59.999Z' }),
      event({ name: 'at end', timestamp: '2024-05-04T00:00:00.000Z' }),
      event({ name: 'received after the request', receivedAt: '2024-06-01T00:00:00.001Z' }),
    ];
    await insert(events);
    const [earliest, late, group] = events.map((stored) => stored.eventId);
    const lines = await jsonLines({ endTime: new Date('2024-05-04T00:00:00Z'), timeZoneMinutes: 60 });
    // Each line carries its event's id, so that a client can drop copies of a line.
    expect(lines).toEqual([
      { name: 'group', timestamp: '2024-05-02T01:00:00.000+01:00', user_id: null, id: group, attributes: {} },
      {
        name: 'late',
        timestamp: '2024-05-03T01:00:00.000+01:00',
        user_id: 'u1',
        id: late,
        attributes: { n: 1, tags: ['a'], text: 'line\nbreak "quoted" /' },
      },
      { name: 'other user, earliest', timestamp: '2024-05-01T01:00:00.000+01:00', user_id: 'u2', id: earliest, attributes: {} },
    ]);
  });

  it('pages through limit and offset across page boundaries, in a total order', async () => {
    // Eight events of one instant: the event id orders them.
    await insert(Array.from({ length: 8 }, (_, index) => event({ name: `n${index}` })));
    const names = async (offset: number, limit: number) => (await jsonLines({ offset, limit })).map((line) => line['name']);
    const pageQueries = jest.spyOn(client, 'exec');
    expect(await names(0, 1_000)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7']);
    expect(pageQueries).toHaveBeenCalledTimes(3);
    pageQueries.mockRestore();
    expect(await names(2, 5)).toEqual(['n2', 'n3', 'n4', 'n5', 'n6']);
    expect(await names(6, 10)).toEqual(['n6', 'n7']);
    expect(await exported({ offset: 8 })).toEqual({ text: '', count: 0 });
  });

  it('exports CSV with the sorted union of attribute keys of the exported events, quoted only where needed', async () => {
    const events = [
      event({ name: 'skipped', userId: '', groupId: 'g0', timestamp: '2024-05-01T00:00:00.000Z', attributes: { only_in_skipped: 1 } }),
      event({ name: 'a,b', timestamp: '2024-05-02T00:00:00.000Z', attributes: { zeta: 'say "hi"', alpha: 'x' } }),
      event({ name: 'plain', timestamp: '2024-05-03T00:00:00.000Z', attributes: { 'we,ird': { o: [1] }, alpha: null, n: 2.5, yes: true } }),
      event({ name: 'group', userId: '', groupId: 'g1', timestamp: '2024-05-04T00:00:00.000Z', attributes: { alpha: 'two\nlines' } }),
    ];
    await insert(events);
    const [, quoted, plain, group] = events.map((stored) => stored.eventId);
    const pageQueries = jest.spyOn(client, 'exec');
    const { text, count } = await exported({ format: 'csv', offset: 1 });
    expect(pageQueries).toHaveBeenCalledTimes(2);
    pageQueries.mockRestore();
    expect(count).toBe(3);
    expect(text).toBe(
      'name,timestamp,user_id,id,attributes.alpha,attributes.n,"attributes.we,ird",attributes.yes,attributes.zeta\r\n' +
        `group,2024-05-04T00:00:00.000Z,,${group},"two\nlines",,,,\r\n` +
        `"a,b",2024-05-02T00:00:00.000Z,u1,${quoted},x,,,,"say ""hi"""\r\n` +
        `plain,2024-05-03T00:00:00.000Z,u1,${plain},,2.5,"{""o"":[1]}",true,\r\n`,
    );
  });

  it('neutralises CSV cells a spreadsheet would run as formulas, by the rule of every CSV of the API (csvCell)', async () => {
    const attributes = { '=key': '+1+cmd', balance: -5, dash: '-', note: '-2.5', tab: '\t=1', text: '@SUM(A1)', when: '=1,"a"' };
    const formula = event({ name: '=HYPERLINK("x")', userId: '-u1', attributes });
    await insert([formula]);
    const { text } = await exported({ format: 'csv' });
    expect(text).toBe(
      'name,timestamp,user_id,id,attributes.=key,attributes.balance,attributes.dash,attributes.note,attributes.tab,attributes.text,attributes.when\r\n' +
        `"'=HYPERLINK(""x"")",2024-05-01T09:30:00.000Z,"'-u1",${formula.eventId},"'+1+cmd",-5,"'-",-2.5,"'\t=1","'@SUM(A1)","'=1,""a"""\r\n`,
    );
    const cells = ['=HYPERLINK("x")', '2024-05-01T09:30:00.000Z', '-u1', formula.eventId, ...Object.values(attributes)];
    expect(text.split('\r\n')[1]).toBe(csvRecord(cells));
  });

  it('rejects, rather than waits forever, when the output fails or closes mid-export', async () => {
    await insert(Array.from({ length: 5 }, () => event()));
    const failing = new Writable({ highWaterMark: 1, write: (_chunk, _encoding, done) => done(new Error('disk full')) });
    failing.on('error', () => undefined);
    await expect(store.export(exportQuery(), failing)).rejects.toThrow('disk full');
    const closing = new Writable({ highWaterMark: 1, write: () => closing.destroy() });
    await expect(store.export(exportQuery(), closing)).rejects.toThrow('the export output closed before the export was written');
  });

  it('refuses a CSV export with more attribute keys than columns it holds for good, pointing to json', async () => {
    const attributes = Object.fromEntries(Array.from({ length: MAX_CSV_ATTRIBUTE_COLUMNS + 1 }, (_, index) => [`k${index}`, index]));
    await insert([event({ attributes })]);
    const failure = await exported({ format: 'csv' }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe(
      'the exported events have 1001 attribute keys, more than the 1000 columns a CSV export holds; export as json',
    );
    expect(classifyFailure(failure)).toBe('permanent');
  });

  it('writes the cells of attribute keys beyond U+FFFF under their own columns, in byte order', async () => {
    const stored = event({ attributes: { '\u{1F600}': 'emoji', '\uFF01': 'fullwidth', a: 'ascii' } });
    await insert([stored]);
    expect((await exported({ format: 'csv' })).text).toBe(
      'name,timestamp,user_id,id,attributes.a,attributes.\uFF01,attributes.\u{1F600}\r\n' +
        `viewed,2024-05-01T09:30:00.000Z,u1,${stored.eventId},ascii,fullwidth,emoji\r\n`,
    );
  });

  /** One event of 999 attributes of 1 KB: a megabyte of attributes, and a CSV column per attribute. */
  const wideAttributes = () =>
    Object.fromEntries(Array.from({ length: 999 }, (_, index) => [`key_${String(index).padStart(3, '0')}`, `${index}`.padEnd(1024, 'x')]));

  it('exports in CSV an event of 999 attributes of 1 KB within the memory of an export query: its attributes are parsed once, not once per column', async () => {
    const attributes = wideAttributes();
    const wide = event({ attributes });
    await insert([wide]);
    const lines = (await exported({ format: 'csv' })).text.split('\r\n');
    expect(lines[0]).toBe(['name', 'timestamp', 'user_id', 'id', ...Object.keys(attributes).map((key) => `attributes.${key}`)].join(','));
    expect(lines[1]).toBe(['viewed', '2024-05-01T09:30:00.000Z', 'u1', wide.eventId, ...Object.values(attributes)].join(','));
  });

  it('fails an export whose events need more than its memory budget for good, saying how to export them', async () => {
    // Ten megabytes of events in one page, against a budget of 4 MiB.
    await insert(Array.from({ length: 10 }, () => event({ attributes: wideAttributes() })));
    const budgeted = new ClickHouseEventStore(client, { historyWaitLimitMs: 5_000, exportQueryMaxMemoryBytes: 4 * 1024 * 1024 });
    const failure = await budgeted
      .export(exportQuery(), new Writable({ write: (_chunk, _encoding, done) => done() }))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExportOverMemoryBudget);
    expect((failure as Error).message).toMatch(
      /^the exported events need more than the 4 MiB of memory an export may use in the event store: export fewer events at a time/,
    );
    expect(classifyFailure(failure)).toBe('permanent');
  });

  it('writes the CSV header alone when nothing matches', async () => {
    expect(await exported({ format: 'csv' })).toEqual({ text: 'name,timestamp,user_id,id\r\n', count: 0 });
  });

  describe('conditions, against real rows', () => {
    beforeEach(async () => {
      await insert([
        event({ name: 'text one', timestamp: '2024-05-01T00:00:00.000Z', attributes: { flow_id: '1', plan: 'Pro annual' } }),
        event({ name: 'number one', timestamp: '2024-05-02T00:00:00.000Z', attributes: { flow_id: 1, plan: 'basic' } }),
        event({ name: 'null flow', timestamp: '2024-05-03T00:00:00.000Z', attributes: { flow_id: null, ok: true } }),
        event({ name: 'svc:profile_update', userId: '', groupId: 'g1', timestamp: '2024-05-04T00:00:00.000Z', attributes: { ok: false } }),
      ]);
    });

    it('tells attribute types apart with == and in', async () => {
      expect(await selected([['flow_id', '==', '1']])).toEqual(['text one']);
      expect(await selected([['flow_id', '==', 1]])).toEqual(['number one']);
      expect(await selected([['ok', 'in', [true, 'x']]])).toEqual(['null flow']);
      expect(await selected([['flow_id', '!=', 1]])).toEqual(['svc:profile_update', 'text one', 'null flow']);
    });

    it('matches like patterns on attribute text and columns, case-insensitively with ilike', async () => {
      expect(await selected([['plan', 'like', 'Pro%']])).toEqual(['text one']);
      expect(await selected([['plan', 'ilike', 'pro%']])).toEqual(['text one']);
      expect(await selected([['plan', 'not like', 'Pro%']])).toEqual(['svc:profile_update', 'number one', 'null flow']);
      expect(await selected([['name', 'like', 'svc:%']])).toEqual(['svc:profile_update']);
    });

    it('takes null attributes to be JSON null or absent, and null ids to be empty', async () => {
      expect(await selected([['flow_id', 'is null']])).toEqual(['svc:profile_update', 'null flow']);
      expect(await selected([['flow_id', 'is not null']])).toEqual(['text one', 'number one']);
      expect(await selected([['user_id', 'is null']])).toEqual(['svc:profile_update']);
      expect(await selected([['group_id', 'is not null']])).toEqual(['svc:profile_update']);
    });

    it('combines conditions, and compares timestamps as instants', async () => {
      expect(await selected([['or', ['name', '==', 'text one'], ['and', ['ok', 'is not null'], ['user_id', 'not in', ['u1']]]]])).toEqual([
        'svc:profile_update',
        'text one',
      ]);
      expect(await selected([['timestamp', '==', '2024-05-01T20:00:00-04:00']])).toEqual(['number one']);
      expect(
        await selected([
          ['name', 'in', ['null flow']],
          ['flow_id', 'is null'],
        ]),
      ).toEqual(['null flow']);
    });
  });

  it('stores what JSON allows but UTF-8 and simdjson do not: lone surrogates, integers beyond 64 bits', async () => {
    const unreadable = event({ name: 'bad \ud800 name', attributes: { big: 123456789012345680000, text: 'x\udc00' } });
    await insert([unreadable]);
    // Stored as U+FFFD, which is what a query finds (conditions holding a lone surrogate are refused at intake).
    expect(await jsonLines({ conditions: [['text', '==', 'x\ufffd']] })).toEqual([
      {
        name: 'bad \ufffd name',
        timestamp: '2024-05-01T09:30:00.000Z',
        user_id: 'u1',
        id: unreadable.eventId,
        attributes: { big: 123456789012345680000, text: 'x\ufffd' },
      },
    ]);
    expect((await exported({ format: 'csv' })).text).toBe(
      'name,timestamp,user_id,id,attributes.big,attributes.text\r\n' +
        `bad \ufffd name,2024-05-01T09:30:00.000Z,u1,${unreadable.eventId},123456789012345670000,x\ufffd\r\n`,
    );
  });

  it('takes a batch spanning more months than ClickHouse allows partitions per insert by default', async () => {
    const months = Array.from({ length: 101 }, (_, index) => event({ timestamp: new Date(Date.UTC(2000, index, 1)).toISOString() }));
    await insert(months);
    expect((await exported({ startTime: new Date('2000-01-01T00:00:00Z') })).count).toBe(101);
    // 101 parts written and read back: 1 to 2 s on an idle machine, past Jest's 5 s default on a busy one.
  }, 30_000);

  it('stores events of several accounts in one insert, each read only within its own account', async () => {
    const otherAccountId = `${accountId}-other`;
    await store.insert([
      { accountId, event: event({ name: 'mine' }) },
      { accountId: otherAccountId, event: event({ name: 'theirs' }) },
    ]);
    const history = (ofAccount: string) => store.history({ accountId: ofAccount, userId: 'u1', limit: 10, timeZoneMinutes: 0 });
    expect((await history(accountId)).map((e) => e.name)).toEqual(['mine']);
    expect((await history(otherAccountId)).map((e) => e.name)).toEqual(['theirs']);
    expect((await jsonLines()).map((line) => line['name'])).toEqual(['mine']);
  });
}
