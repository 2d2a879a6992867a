import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChdbEngine, type EngineResult } from './chdb-engine';
import { AUTHENTICATION_FAILED, ClickHouseException, NOT_IMPLEMENTED, QUERY_WAS_CANCELLED } from './clickhouse-exception';
import { type HttpQuery, killOf, type QueryKill, queryOf, readRequestBody } from './clickhouse-request';

export interface ChdbHttpOptions {
  readonly host: string;
  /** 0 picks a free port (see `ChdbHttpServer.url`). */
  readonly port: number;
  /** The engine's data folder, created when missing. */
  readonly path: string;
  /** The engine's memory budget (`ChdbEngine.open`); the server's defaults when absent. */
  readonly memoryBytes?: number;
  /**
   * The password of the `default` user (Basic authorization, `X-ClickHouse-Key` or the `password`
   * parameter, as the server takes it). Without one, anybody who reaches the port may query.
   */
  readonly password?: string;
  /** Log every statement, not only the failed ones. */
  readonly verbose?: boolean;
  /** The largest request body held in memory (decompressed). */
  readonly maxBodyBytes?: number;
  readonly log?: (line: string) => void;
}

export interface ChdbHttpServer {
  /** `http://host:port`, the URL to give `@clickhouse/client`. */
  readonly url: string;
  /** Stops accepting requests, lets the running ones finish, then closes the engine. */
  close(): Promise<void>;
}

/** Batched inserts are tens of MB; this leaves room while staying well below V8's largest string. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;
/** The server's default `http_max_uri_size`: query parameters travel in the URL. */
const MAX_URI_BYTES = 1024 * 1024;
const STATEMENT_LOG_CHARS = 300;

/**
 * The subset of ClickHouse's HTTP interface that `@clickhouse/client` uses, in front of one chdb
 * engine, so that several processes share one ClickHouse in tests and local runs:
 * - `GET /ping` (and `GET /` without a query) answer `Ok.`;
 * - `POST /` (or `GET /`) runs the statement of `query` and the body, with `database`, `query_id`,
 *   `default_format`, `param_<name>` and settings from the URL, and answers with the result in its
 *   format and the `X-ClickHouse-Query-Id`, `-Format` and `-Summary` headers (the summary carries
 *   the result's rows and bytes and the elapsed time; chdb does not report rows read or written);
 * - a failure answers 500 (400 for a bad request, 413 for a body over the limit) with
 *   `X-ClickHouse-Exception-Code` and the server's `Code: <n>. DB::Exception: ...` body.
 * A statement whose client closes its connection before the answer does not run, or is stopped if it
 * is a read (`runForClient`). Responses are never compressed (the client reads an answer without
 * `Content-Encoding` as is); request bodies may be. There is one user: with a `password`, a request
 * without it fails (516); the user name is not checked. Sessions (`session_id`) and multipart
 * parameters are refused. GET runs any statement (the server allows only reads).
 */
export async function startChdbHttpServer(options: ChdbHttpOptions): Promise<ChdbHttpServer> {
  const engine = ChdbEngine.open(options.path, options.memoryBytes);
  const handler = new RequestHandler(engine, options);
  const server = createServer({ maxHeaderSize: MAX_URI_BYTES }, (request, response) => void handler.handle(request, response));
  try {
    server.listen(options.port, options.host);
    await once(server, 'listening');
  } catch (error) {
    await engine.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  return { url: `http://${urlHost(options.host)}:${port}`, close: () => closeAll(server, engine) };
}

class RequestHandler {
  private readonly log: (line: string) => void;
  private readonly maxBodyBytes: number;

  constructor(
    private readonly engine: ChdbEngine,
    private readonly options: ChdbHttpOptions,
  ) {
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  /** Stops the statement of a query id (`ChdbEngine.cancel`). */
  private async cancel(kill: QueryKill): Promise<EngineResult> {
    const started = Date.now();
    await this.engine.cancel(kill.queryId, kill.sync);
    return { ...NO_ROWS, elapsedSeconds: (Date.now() - started) / 1000 };
  }

  /**
   * Runs the statement while its client waits. A client that closes its connection before the answer
   * has given up on it (its timeout, an aborted request): the statement does not start, is dropped if
   * it still waits for a slot, and is stopped if it is a read, as the server does with
   * `cancel_http_readonly_queries_on_client_close`.
   */
  private async runForClient(query: HttpQuery, request: IncomingMessage, response: ServerResponse): Promise<EngineResult> {
    if (request.socket.destroyed || !request.socket.writable) {
      throw ClickHouseException.of(
        QUERY_WAS_CANCELLED,
        'QUERY_WAS_CANCELLED',
        'the client closed its connection before the statement ran',
        500,
      );
    }
    response.once('close', () => {
      if (!response.writableFinished) this.engine.abandon(query.queryId, READ_STATEMENT.test(query.sql));
    });
    return this.engine.run(query);
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://front');
    let query: HttpQuery | undefined;
    try {
      if (url.pathname === '/ping' || (url.pathname === '/' && request.method === 'GET' && !url.searchParams.has('query'))) {
        response.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      if (!authorized(request, url, this.options.password)) {
        throw ClickHouseException.of(
          AUTHENTICATION_FAILED,
          'AUTHENTICATION_FAILED',
          'default: Authentication failed: password is incorrect, or there is no user with such name',
          403,
        );
      }
      if (url.pathname !== '/' || (request.method !== 'POST' && request.method !== 'GET')) {
        throw ClickHouseException.of(
          NOT_IMPLEMENTED,
          'NOT_IMPLEMENTED',
          `${request.method} ${url.pathname} is not served here: use POST / or GET /ping`,
          404,
        );
      }
      const body = request.method === 'POST' ? await readRequestBody(request, this.maxBodyBytes) : '';
      query = queryOf(url.searchParams, body);
      const kill = killOf(query);
      const result = kill === undefined ? await this.runForClient(query, request, response) : await this.cancel(kill);
      if (this.options.verbose)
        this.log(`${new Date().toISOString()} query ${query.queryId} ok in ${elapsedMs(result)} ms: ${statementForLog(query)}`);
      sendResult(response, query, result);
    } catch (error) {
      const exception = ClickHouseException.fromEngine(error);
      const queryId = query?.queryId ?? url.searchParams.get('query_id') ?? undefined;
      const statement = query === undefined ? '' : ` -- ${statementForLog(query)}`;
      this.log(
        `${new Date().toISOString()} query ${queryId ?? '-'} failed (${exception.httpStatus}): ${oneLine(exception.text)}${statement}`,
      );
      sendError(response, exception, queryId);
    }
  }
}

/** A statement that only reads, whose answer is all it does. */
const READ_STATEMENT = /^[\s(]*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;

/** An answer without rows: what a KILL of one query answers here. */
const NO_ROWS: EngineResult = { body: new Uint8Array(), resultRows: 0, resultBytes: 0, elapsedSeconds: 0 };

/** Whether the request carries the password, where the server would read it; any request does without one. */
function authorized(request: IncomingMessage, url: URL, password: string | undefined): boolean {
  if (password === undefined) return true;
  const basic = /^Basic\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const candidates = [
    basic === undefined
      ? undefined
      : Buffer.from(basic, 'base64')
          .toString('utf8')
          .replace(/^[^:]*:/, ''),
    headerValue(request.headers['x-clickhouse-key']),
    url.searchParams.get('password') ?? undefined,
  ];
  return candidates.some((candidate) => candidate !== undefined && equalSecrets(candidate, password));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function equalSecrets(given: string, expected: string): boolean {
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}

function sendResult(response: ServerResponse, query: HttpQuery, result: EngineResult): void {
  const format = outputFormat(query);
  const summary = {
    read_rows: '0',
    read_bytes: '0',
    written_rows: '0',
    written_bytes: '0',
    total_rows_to_read: '0',
    result_rows: String(result.resultRows),
    result_bytes: String(result.resultBytes),
    elapsed_ns: String(Math.round(result.elapsedSeconds * 1e9)),
  };
  response
    .writeHead(200, {
      'Content-Type': contentTypeOf(format),
      'Content-Length': result.body.byteLength,
      'X-ClickHouse-Query-Id': query.queryId,
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Summary': JSON.stringify(summary),
    })
    .end(result.body);
}

function sendError(response: ServerResponse, exception: ClickHouseException, queryId: string | undefined): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response
    .writeHead(exception.httpStatus, {
      'Content-Type': 'text/plain; charset=UTF-8',
      'X-ClickHouse-Exception-Code': String(exception.code),
      ...(queryId === undefined ? {} : { 'X-ClickHouse-Query-Id': queryId }),
      // A body left unread (413) cannot be skipped on a kept-alive connection.
      ...(exception.httpStatus === 413 ? { Connection: 'close' } : {}),
    })
    .end(`${exception.text}\n`);
}

/** The format of the answer: the SQL's closing `FORMAT <name>` clause, else the request's default. */
function outputFormat(query: HttpQuery): string {
  return /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(query.sql)?.[1] ?? query.format;
}

function contentTypeOf(format: string): string {
  if (/^(JSON|NDJSON)/i.test(format)) return 'application/json; charset=UTF-8';
  if (/^(TabSeparated|TSV)/i.test(format)) return 'text/tab-separated-values; charset=UTF-8';
  if (/^CSV/i.test(format)) return 'text/csv; charset=UTF-8';
  return 'text/plain; charset=UTF-8';
}

function statementForLog(query: HttpQuery): string {
  const text = oneLine(query.sql);
  return text.length > STATEMENT_LOG_CHARS ? `${text.slice(0, STATEMENT_LOG_CHARS)}...` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function elapsedMs(result: EngineResult): string {
  return (result.elapsedSeconds * 1000).toFixed(1);
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function closeAll(server: Server, engine: ChdbEngine): Promise<void> {
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  await closed;
  await engine.close();
}
