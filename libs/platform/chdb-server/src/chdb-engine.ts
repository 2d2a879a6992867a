import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Session } from 'chdb';
import { ClickHouseException, QUERY_WAS_CANCELLED } from './clickhouse-exception';

/** One statement to run, with what the HTTP request set around it. */
export interface EngineQuery {
  /** The request's `query_id`, by which `cancel` finds the statement. */
  readonly queryId: string;
  /** The SQL text; an INSERT's rows follow it, as in the request body. */
  readonly sql: string;
  /** `USE` this database first; the engine's `default` when absent. */
  readonly database: string | undefined;
  /** Query parameters by name, as sent in `param_<name>`: escaped text, `\N` for null. */
  readonly params: ReadonlyMap<string, string>;
  readonly settings: ReadonlyMap<string, string>;
  /** The output format when the SQL names none. */
  readonly format: string;
}

export interface EngineResult {
  readonly body: Uint8Array;
  readonly resultRows: number;
  readonly resultBytes: number;
  readonly elapsedSeconds: number;
}

/**
 * Statements run side by side, each on a session of its own; more wait their turn. chdb runs one
 * statement at a time per session, so with a single one an analytics query would hold back every
 * insert and history read until it ended; a few let those pass while it runs, as a server does.
 */
const CONCURRENT_STATEMENTS = 4;
/** How often `cancel` asks the engine again to stop a statement that has not stopped yet. */
const CANCEL_RETRY_MS = 100;

/**
 * The ClickHouse engine of this process (chdb binds one data folder per process), running up to
 * `CONCURRENT_STATEMENTS` statements at once.
 *
 * Each statement gets a connection of its own to the engine, so that its database, settings and
 * parameters (`USE`, `SET`) end with it instead of leaking into the next client's statement. A
 * connection costs about a millisecond; the anchor connection keeps the engine and its tables loaded
 * in between.
 */
export class ChdbEngine {
  /** Statements running, or handed a slot and about to. */
  private running = 0;
  /** Statements waiting for a slot, oldest first. */
  private readonly waiting: Waiting[] = [];
  /** The statements handed a slot, by query id: settled once the engine is done with each. */
  private readonly started = new Map<string, Promise<unknown>>();
  /** Called once nothing runs or waits any more, when `close` waits for that. */
  private drained: (() => void) | undefined;

  private constructor(
    private readonly path: string,
    private readonly anchor: Session,
    /** Settings of every statement, under those the request sets. */
    private readonly statementDefaults: ReadonlyMap<string, string>,
  ) {}

  /**
   * Opens (or creates) the data folder; throws when chdb cannot, e.g. another process holds it. With
   * `memoryBytes`, the engine's memory is that budget (see `engineArguments`), else the server's
   * defaults, sized for a machine of its own.
   */
  static open(path: string, memoryBytes?: number): ChdbEngine {
    const absolute = resolve(path);
    // The first session of a data folder starts the engine, which every later session shares: opened
    // with the engine's arguments, the anchor configures the engine.
    const anchor = new Session(absolute, memoryBytes === undefined ? {} : { connectionArgs: engineArguments(memoryBytes) });
    const defaults = memoryBytes === undefined ? new Map<string, string>() : BUDGET_STATEMENT_SETTINGS;
    return new ChdbEngine(absolute, anchor, defaults);
  }

  async run(query: EngineQuery): Promise<EngineResult> {
    await this.slot(query.queryId);
    const running = this.runAlone(query);
    this.started.set(
      query.queryId,
      running.catch(() => undefined),
    );
    try {
      return await running;
    } finally {
      this.started.delete(query.queryId);
      this.release();
    }
  }

  /**
   * Stops the statement of `queryId` (what `KILL QUERY WHERE query_id = ...` asks of a server, whose
   * query ids the engine does not take): one still waiting for a slot fails at once with
   * QUERY_WAS_CANCELLED; the engine is told to stop a running one, again until it has, and with
   * `sync` this resolves only once it has stopped. Needs no slot: it must not wait behind the
   * statements it stops.
   */
  async cancel(queryId: string, sync: boolean): Promise<void> {
    if (this.dropWaiting(queryId)) return;
    const running = this.started.get(queryId);
    if (running === undefined) return;
    const stopping = this.stopUntilSettled(queryId, running);
    if (sync) await stopping;
  }

  /**
   * What a server does for a client that has gone before its answer: the statement of `queryId` no
   * longer waits for a slot, and a running one is stopped when `stopRunning` (a read, whose answer
   * nobody will see; a write runs to its end). After a store stalls, the statements its clients gave
   * up on would otherwise hold the slots ahead of those asked since.
   */
  abandon(queryId: string, stopRunning: boolean): void {
    if (!this.dropWaiting(queryId) && stopRunning) void this.cancel(queryId, false);
  }

  /** Fails the statement of `queryId` with QUERY_WAS_CANCELLED if it waits for a slot; whether it did. */
  private dropWaiting(queryId: string): boolean {
    const waiting = this.waiting.findIndex((entry) => entry.queryId === queryId);
    if (waiting < 0) return false;
    this.waiting
      .splice(waiting, 1)[0]
      .cancel(ClickHouseException.of(QUERY_WAS_CANCELLED, 'QUERY_WAS_CANCELLED', 'Query was cancelled', 500));
    return true;
  }

  private async stopUntilSettled(queryId: string, running: Promise<unknown>): Promise<void> {
    let settled = false;
    void running.then(() => (settled = true));
    // The statement may still be setting its parameters, or between them and its query, when the
    // first kill comes: the kill is repeated until the statement has ended.
    while (!settled) {
      this.kill(queryId);
      await Promise.race([running, sleep(CANCEL_RETRY_MS)]);
    }
  }

  /**
   * The engine's own KILL, on a connection of its own, for the statement tagged with `queryId` (see
   * `scriptOf`). Run on this thread, for the few milliseconds it takes to flag the statement: an
   * asynchronous query waits for a thread of libuv's pool, which the statements it would stop may
   * hold every one of (four by default, as many as the statements running at once).
   */
  private kill(queryId: string): void {
    const session = new Session(this.path);
    try {
      session.query(`KILL QUERY WHERE Settings['log_comment'] = ${quotedString(queryId)} ASYNC`, 'TabSeparated');
    } finally {
      session.close();
    }
  }

  /** Waits for the running and waiting statements, then closes the engine. */
  async close(): Promise<void> {
    if (this.running > 0) await new Promise<void>((done) => (this.drained = done));
    this.anchor.close();
  }

  private async slot(queryId: string): Promise<void> {
    if (this.running < CONCURRENT_STATEMENTS) {
      this.running += 1;
      return;
    }
    // The statement that settles next hands its slot over.
    await new Promise<void>((turn, cancel) => this.waiting.push({ queryId, turn, cancel }));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) {
      next.turn();
      return;
    }
    this.running -= 1;
    if (this.running === 0) this.drained?.();
  }

  private async runAlone(query: EngineQuery): Promise<EngineResult> {
    let session: Session | undefined;
    try {
      session = new Session(this.path);
      const settings = new Map([...this.statementDefaults, ...query.settings]);
      const result = await session.queryAsync(scriptOf({ ...query, settings }), { format: query.format });
      return { body: result.bytes(), resultRows: result.rowsRead, resultBytes: result.bytesRead, elapsedSeconds: result.elapsed };
    } catch (error) {
      throw ClickHouseException.fromEngine(error);
    } finally {
      session?.close();
    }
  }
}

/** A statement waiting for a slot: handed one with `turn`, or failed with `cancel`. */
interface Waiting {
  readonly queryId: string;
  readonly turn: () => void;
  readonly cancel: (reason: Error) => void;
}

/** Each of the engine's caches that would otherwise grow to 5 GiB (marks, primary index): what a query reads often. */
const ENGINE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The free engine memory a query needs per thread before it may use one more. The engine's default
 * (1 GiB) is sized for a server of its own: under the few hundred MiB the standalone shape gives the
 * engine, it ran every query on one thread, and analytics over 10 M events took 2.5 times as long as
 * with a thread per core (bench/results/2026-11-24.md, "Analytics"). A reading thread holds a few blocks of
 * 65,536 rows. A query setting, so given with every statement: the engine's arguments set only those
 * of the session that starts it.
 */
const BUDGET_STATEMENT_SETTINGS: ReadonlyMap<string, string> = new Map([
  ['max_threads_min_free_memory_per_thread', String(64 * 1024 * 1024)],
]);

/**
 * The engine's memory, set rather than left to server defaults sized for a machine of its own (90 %
 * of RAM for queries, 5 GiB caches): `memoryBytes` for queries and caches together (a query that
 * would pass it fails instead of growing the process), small mark and index caches, no cache of
 * uncompressed blocks and no page cache. docs/performance.md says what the standalone shape then holds.
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

/**
 * The statement behind what sets it up in its connection, tagged with the request's query id (the
 * engine's `log_comment`, in place of a client's own). Parameters go through `SET param_<name>`,
 * which hands the engine the client's text unchanged: the engine then reads it per declared type, as
 * the server reads `param_<name>` (a String undoes the escaping, `\N` is null, an Array reads its
 * quoted elements). chdb's own binding (`queryBindAsync`) escapes every string once more, which no
 * unescaping here could undo for every type: a backslash inside an Array(String) element would
 * come out doubled.
 */
function scriptOf(query: EngineQuery): string {
  const setup = [
    ...(query.database === undefined ? [] : [`USE ${quotedIdentifier(query.database)}`]),
    ...[...query.settings].map(([name, value]) => `SET ${name} = ${quotedString(value)}`),
    // The engine's query ids are its own: the request's is how `cancel` finds the statement.
    `SET log_comment = ${quotedString(query.queryId)}`,
    ...[...query.params].map(([name, value]) => `SET param_${name} = ${quotedString(value)}`),
  ];
  return [...setup, query.sql].join(';\n');
}

function quotedString(text: string): string {
  return `'${text.replace(/[\\'\0]/g, (character) => (character === '\0' ? '\\0' : `\\${character}`))}'`;
}

function quotedIdentifier(name: string): string {
  return `\`${name.replace(/[\\`]/g, (character) => `\\${character}`)}\``;
}
