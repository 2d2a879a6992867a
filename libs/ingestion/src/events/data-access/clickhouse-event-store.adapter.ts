import type { Writable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Event } from '@guidepost/contracts-http';
import { PermanentFailure, TransientFailure } from '@guidepost/platform-failures';
import { csvRecord } from '@guidepost/platform-http';
import {
  type AccountEvent,
  EventStore,
  ExportOverMemoryBudget,
  type ExportQuery,
  type HistoryQuery,
} from '../application/event-store.port';
import { compileExportConditions } from '../domain/export-conditions';
import { dateTime64Param } from '../domain/instant';
import { wellFormed, wellFormedJson } from '../domain/well-formed-text';
import { stoppedByQueryMemoryLimit } from './clickhouse-query-limits';
import { CSV_RECORD, JSON_LINE, READ_SETTINGS, RENDERED_TIMESTAMP, zoneParams } from './event-sql';
import { exportPages, type Page, type RowKey } from './export-pages';
import { write } from '../application/output-writes';

export const EVENTS_TABLE = 'events';
/** Where events are inserted: a Null table whose view stores in `events` those not stored yet (event-store migration 4). */
const INCOMING_EVENTS_TABLE = 'incoming_events';
/**
 * Rows per export page. The in-process engine hands each result over whole, so a page is what an
 * export holds in memory at a time: about 4 MB of NDJSON at typical event sizes. Read in the table's
 * order, a page costs no sort, so smaller pages cost little time (measured on 1 M events: pages of
 * 20 000 rows were faster than pages of 100 000, and peaked 150 MiB lower).
 */
export const EXPORT_PAGE_ROWS = 20_000;
/** Pages are cut from segments of an eighth of a page, so that a CSV page can shrink (see `exportPages`). */
const SEGMENTS_PER_PAGE = 8;
/** Bytes of a typical exported event; a CSV page shrinks as each attribute column adds at least a comma per row. */
const TYPICAL_ROW_BYTES = 300;
/** A CSV export with more attribute keys than this fails: its rows would outgrow any page, and no one reads such a table. */
export const MAX_CSV_ATTRIBUTE_COLUMNS = 1_000;
/**
 * The order of an export: the table's sorting key within the account, so that ClickHouse reads each
 * page in order from the primary key instead of sorting the selection. Total even among events of one
 * user and instant. The API promises no order for exports (history stays newest first).
 */
const EXPORT_ORDER = 'user_id, timestamp, event_id';
/**
 * The most memory one export query may take in ClickHouse. Reading in order keeps a query's memory
 * bounded by the parts it merges, not by the export's size (measured on 1 M events in one month: the
 * planning query needs under 128 MiB, a page under 96 MiB); this leaves room for many parts, and
 * stops a query before it can take the standalone process (which holds the engine) past its budget.
 */
export const EXPORT_QUERY_MAX_MEMORY_BYTES = 256 * 1024 * 1024;

/** The export's events: a WHERE clause and its parameters. */
interface Selection {
  readonly where: string;
  readonly params: Record<string, unknown>;
}

interface HistoryRow {
  name: string;
  rendered_timestamp: string;
  user_id: string;
  attributes: string;
}

/**
 * The event store in ClickHouse (see `EVENT_STORE_MIGRATIONS`). Exports are rendered by ClickHouse
 * (`event-sql.ts`) and copied to the output a page at a time, so Node only moves bytes and memory
 * holds one page whatever the export's size.
 */
export class ClickHouseEventStore extends EventStore {
  /** The last insert asked for: each insert starts once the one before it has settled. */
  private lastInsert: Promise<unknown> = Promise.resolve();

  private readonly pageRows: number;
  private readonly historyWaitLimitMs: number;
  private readonly exportQueryMaxMemoryBytes: number;
  /** Settings of every export query: those of every read, and the export's memory budget. */
  private readonly exportSettings: string;

  /**
   * `historyWaitLimitMs` bounds a history read (a request waits on it): a store that says nothing for
   * that long (frozen, or cut off) fails the read as unavailable, a 503 with `Retry-After`, instead of
   * holding the client for the HTTP client's own 30 s.
   */
  constructor(
    private readonly client: ClickHouseClient,
    options: { readonly historyWaitLimitMs: number; readonly pageRows?: number; readonly exportQueryMaxMemoryBytes?: number },
  ) {
    super();
    this.pageRows = options.pageRows ?? EXPORT_PAGE_ROWS;
    this.historyWaitLimitMs = options.historyWaitLimitMs;
    this.exportQueryMaxMemoryBytes = options.exportQueryMaxMemoryBytes ?? EXPORT_QUERY_MAX_MEMORY_BYTES;
    this.exportSettings = `${READ_SETTINGS}, max_memory_usage = ${this.exportQueryMaxMemoryBytes}`;
  }

  /**
   * Stores the events not stored yet, the first of each key (see event-store migration 4). One insert
   * at a time: two at once would each look up the stored keys before the other's rows are there, and
   * both would store an event they both carry.
   */
  insert(events: readonly AccountEvent[]): Promise<void> {
    const inserted = this.lastInsert.then(() => this.insertNow(events));
    this.lastInsert = inserted.catch(() => undefined);
    return inserted;
  }

  private async insertNow(events: readonly AccountEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.client.insert({
      table: INCOMING_EVENTS_TABLE,
      format: 'JSONEachRow',
      values: events.map(eventRowOf),
      // An import of old events spans many months: one partition each, more than the default 100 per insert.
      clickhouse_settings: { max_partitions_per_insert_block: '0' },
    });
  }

  async history(query: HistoryQuery): Promise<Event[]> {
    const signal = AbortSignal.timeout(this.historyWaitLimitMs);
    const rows = this.historyRows(query, signal).catch((error: unknown) => {
      throw signal.aborted
        ? new TransientFailure(`the event store did not answer within ${this.historyWaitLimitMs} ms`, { cause: error })
        : error;
    });
    return (await rows).map(eventOf);
  }

  private async historyRows(query: HistoryQuery, signal: AbortSignal): Promise<HistoryRow[]> {
    const result = await this.client.query({
      query: `SELECT name, ${RENDERED_TIMESTAMP} AS rendered_timestamp, user_id, attributes
                FROM ${EVENTS_TABLE} FINAL
               WHERE account_id = {account_id:String} AND user_id = {user_id:String}
               ORDER BY timestamp DESC, event_id DESC
               LIMIT {limit:UInt32}
              ${READ_SETTINGS}`,
      query_params: { account_id: query.accountId, user_id: query.userId, limit: query.limit, ...zoneParams(query.timeZoneMinutes) },
      format: 'JSONEachRow',
      abort_signal: signal,
      // The store stops the read too, rather than run on for a client that has gone.
      clickhouse_settings: { max_execution_time: Math.ceil(this.historyWaitLimitMs / 1000) },
    });
    return result.json<HistoryRow>();
  }

  async export(query: ExportQuery, output: Writable): Promise<number> {
    try {
      return await this.exportPages(query, output);
    } catch (error) {
      throw stoppedByQueryMemoryLimit(error) ? new ExportOverMemoryBudget(this.exportQueryMaxMemoryBytes, error) : error;
    }
  }

  private async exportPages(query: ExportQuery, output: Writable): Promise<number> {
    const selection = selectionOf(query);
    const segmentRows = Math.ceil(this.pageRows / SEGMENTS_PER_PAGE);
    const { boundaries, attributeKeys } = await this.plan(selection, query, segmentRows);
    let record = JSON_LINE;
    let segmentsPerPage = Math.ceil(this.pageRows / segmentRows);
    if (query.format === 'csv') {
      const keys = csvAttributeKeys(attributeKeys);
      await write(output, csvHeader(keys));
      record = CSV_RECORD;
      selection.params['attribute_keys'] = keys;
      segmentsPerPage = Math.max(1, Math.floor((segmentsPerPage * TYPICAL_ROW_BYTES) / (TYPICAL_ROW_BYTES + keys.length)));
    }
    const pages = exportPages(boundaries, query.offset, segmentRows, segmentsPerPage);
    for (const page of pages) await this.copyPage(record, selection, page, output);
    return pages.reduce((rows, page) => rows + page.rows, 0);
  }

  /**
   * Plans the export in one pass over the sort keys, read in order: the keys of the rows that start a
   * segment within the offset and limit, and of the last row; for CSV, the attribute keys of those
   * rows as well. Each page then reads a key range instead of sorting every event again to skip an
   * OFFSET. Only those few keys are gathered, so the query's memory does not grow with the selection.
   */
  private async plan(
    selection: Selection,
    query: ExportQuery,
    segmentRows: number,
  ): Promise<{ boundaries: RowKey[]; attributeKeys: string[] }> {
    const csv = query.format === 'csv';
    const result = await this.client.query({
      query: `SELECT arraySort(groupArrayIf((n, toString(timestamp), event_id, user_id), (n - {offset:UInt64} - 1) % {segment_rows:UInt64} = 0)) AS starts,
                     argMax((n, toString(timestamp), event_id, user_id), n) AS last,
                     ${csv ? 'groupUniqArrayArray(JSONExtractKeys(attributes))' : 'emptyArrayString()'} AS attribute_keys
                FROM (SELECT timestamp, event_id, user_id, ${csv ? 'attributes, ' : ''}row_number() OVER (ORDER BY ${EXPORT_ORDER}) AS n
                        FROM ${EVENTS_TABLE} FINAL WHERE ${selection.where})
               WHERE n > {offset:UInt64} AND n <= {offset:UInt64} + {limit:UInt64}
              ${this.exportSettings}`,
      query_params: { ...selection.params, offset: query.offset, limit: query.limit, segment_rows: segmentRows },
      format: 'JSONEachRow',
    });
    const [plan] = await result.json<{ starts: KeyTuple[]; last: KeyTuple; attribute_keys: string[] }>();
    const starts = (plan?.starts ?? []).map(rowKeyOf);
    const last = plan && starts.length > 0 ? rowKeyOf(plan.last) : undefined;
    return {
      boundaries: last && last.n !== starts.at(-1)?.n ? [...starts, last] : starts,
      attributeKeys: plan?.attribute_keys ?? [],
    };
  }

  /**
   * Renders one page of records in ClickHouse and copies its bytes to the output, waiting while the
   * output is full. The page's rows are limited to the planned count: events of the range still being
   * stored (the distributed shape stores accepted events a moment later) cannot make the file hold
   * more rows than the export reports.
   */
  private async copyPage(record: string, selection: Selection, page: Page, output: Writable): Promise<void> {
    const { stream } = await this.client.exec({
      query: `SELECT ${record} FROM ${EVENTS_TABLE} FINAL WHERE ${selection.where} AND ${page.toInclusive ? RANGE : RANGE_BEFORE_END}
              ORDER BY ${EXPORT_ORDER} LIMIT {page_rows:UInt64} ${this.exportSettings} FORMAT TabSeparatedRaw`,
      query_params: { ...selection.params, ...rangeParams(page), page_rows: page.rows },
    });
    // Breaking out of the loop (the output failed) destroys the result stream, releasing its connection.
    for await (const chunk of stream) await write(output, chunk as Buffer);
  }
}

/** A row's key as the planning query returns it: `[n, timestamp, event_id, user_id]`, `n` as text (64 bits). */
type KeyTuple = [string | number, string, string, string];

function rowKeyOf([n, at, eventId, userId]: KeyTuple): RowKey {
  return { n: Number(n), at, eventId, userId };
}

/**
 * `(user_id, timestamp, event_id) <operator> (the bound's)`, spelt out column by column: ClickHouse
 * skips the granules outside the range on this form, not on a comparison of tuples.
 */
function keyComparedTo(bound: 'from' | 'to', operator: '>=' | '<' | '<='): string {
  const [user, at, eventId] = [`{${bound}_user_id:String}`, `{${bound}_at:DateTime64(3, 'UTC')}`, `{${bound}_event_id:String}`];
  const [userWithin, strictly] = operator === '>=' ? ['>=', '>'] : ['<=', '<'];
  return `user_id ${userWithin} ${user} AND (user_id ${strictly} ${user} OR timestamp ${strictly} ${at} OR (timestamp = ${at} AND event_id ${operator} ${eventId}))`;
}

/** A page's key range, from its first row to its last (`RANGE`) or to the next page's first (`RANGE_BEFORE_END`). */
const RANGE = `${keyComparedTo('from', '>=')} AND ${keyComparedTo('to', '<=')}`;
const RANGE_BEFORE_END = `${keyComparedTo('from', '>=')} AND ${keyComparedTo('to', '<')}`;

function rangeParams(page: Page): Record<string, string> {
  return {
    from_at: page.from.at,
    from_event_id: page.from.eventId,
    from_user_id: page.from.userId,
    to_at: page.to.at,
    to_event_id: page.to.eventId,
    to_user_id: page.to.userId,
  };
}

/**
 * The account's events in the export's range (from `startTime`, before `endTime`) that match its
 * conditions and that the service had received by the request: events arriving during the export do
 * not shift its pages.
 */
function selectionOf(query: ExportQuery): Selection {
  const conditions = compileExportConditions(query.conditions);
  const where = [
    'account_id = {account_id:String}',
    `timestamp >= {start_time:DateTime64(3, 'UTC')}`,
    ...(query.endTime ? [`timestamp < {end_time:DateTime64(3, 'UTC')}`] : []),
    `received_at <= {received_by:DateTime64(3, 'UTC')}`,
    `(${conditions.sql})`,
  ].join(' AND ');
  return {
    where,
    params: {
      ...conditions.params,
      account_id: query.accountId,
      start_time: dateTime64Param(query.startTime),
      ...(query.endTime ? { end_time: dateTime64Param(query.endTime) } : {}),
      received_by: dateTime64Param(query.receivedBy),
      ...zoneParams(query.timeZoneMinutes),
    },
  };
}

/** A row of `events`; strings are made well-formed, since one unreadable row would fail the whole insert. */
export function eventRowOf({ accountId, event }: AccountEvent): Record<string, unknown> {
  return {
    account_id: accountId,
    event_id: wellFormed(event.eventId),
    user_id: wellFormed(event.userId),
    group_id: wellFormed(event.groupId ?? ''),
    name: wellFormed(event.name),
    timestamp: event.timestamp,
    attributes: wellFormedJson(event.attributes),
    context_url: event.contextUrl === undefined ? null : wellFormed(event.contextUrl),
    received_at: event.receivedAt,
  };
}

function eventOf(row: HistoryRow): Event {
  const event: Event = { user_id: row.user_id, name: row.name, timestamp: row.rendered_timestamp };
  if (row.attributes !== '{}') event.attributes = JSON.parse(row.attributes) as Event['attributes'];
  return event;
}

/**
 * The attribute keys of the exported events in byte order (code point order: JavaScript's own sort too,
 * unless keys hold characters beyond U+FFFF), the order `CSV_RECORD` writes their cells in; at most as
 * many as a CSV export holds.
 */
function csvAttributeKeys(keys: readonly string[]): string[] {
  if (keys.length > MAX_CSV_ATTRIBUTE_COLUMNS) {
    // The same export has as many keys every time: its job fails at once instead of being tried again.
    throw new PermanentFailure(
      `the exported events have ${keys.length} attribute keys, more than the ${MAX_CSV_ATTRIBUTE_COLUMNS} columns a CSV export holds; export as json`,
    );
  }
  return [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** `name,timestamp,user_id,id,attributes.<key>...`, cells written as `CSV_RECORD` writes them (`csvCell`). */
function csvHeader(keys: readonly string[]): string {
  return `${csvRecord(['name', 'timestamp', 'user_id', 'id', ...keys.map((key) => `attributes.${key}`)])}\r\n`;
}
