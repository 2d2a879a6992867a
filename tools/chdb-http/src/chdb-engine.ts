import { resolve } from 'node:path';
import { Session } from 'chdb';
import { ClickHouseException } from './clickhouse-exception';

/** One statement to run, with what the HTTP request set around it. */
export interface EngineQuery {
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
 * The ClickHouse engine of this process (chdb binds one data folder per process), running one
 * statement at a time: correctness over throughput for a test server.
 *
 * Each statement gets a connection of its own to the engine, so that its database, settings and
 * parameters (`USE`, `SET`) end with it instead of leaking into the next client's statement. A
 * connection costs about a millisecond; the anchor connection keeps the engine and its tables loaded
 * in between.
 */
export class ChdbEngine {
  /** The statement queue: each runs once the one before it settled. */
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly anchor: Session,
  ) {}

  /** Opens (or creates) the data folder; throws when chdb cannot, e.g. another process holds it. */
  static open(path: string): ChdbEngine {
    const absolute = resolve(path);
    return new ChdbEngine(absolute, new Session(absolute));
  }

  run(query: EngineQuery): Promise<EngineResult> {
    const result = this.tail.then(() => this.runAlone(query));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Waits for the queued statements, then closes the engine. */
  async close(): Promise<void> {
    await this.tail;
    this.anchor.close();
  }

  private async runAlone(query: EngineQuery): Promise<EngineResult> {
    let session: Session | undefined;
    try {
      session = new Session(this.path);
      const result = await session.queryAsync(scriptOf(query), { format: query.format });
      return { body: result.bytes(), resultRows: result.rowsRead, resultBytes: result.bytesRead, elapsedSeconds: result.elapsed };
    } catch (error) {
      throw ClickHouseException.fromEngine(error);
    } finally {
      session?.close();
    }
  }
}

/**
 * The statement behind what sets it up in its connection. Parameters go through `SET param_<name>`,
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
