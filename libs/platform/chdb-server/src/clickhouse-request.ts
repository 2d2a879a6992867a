import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { EngineQuery } from './chdb-engine';
import {
  BAD_ARGUMENTS,
  CANNOT_READ_ALL_DATA,
  ClickHouseException,
  NOT_IMPLEMENTED,
  SYNTAX_ERROR,
  TOO_MANY_BYTES,
} from './clickhouse-exception';

/** What one HTTP request asks the engine to run. */
export interface HttpQuery extends EngineQuery {
  readonly queryId: string;
}

/** The server's output format when neither the SQL nor `default_format` names one. */
const SERVER_DEFAULT_FORMAT = 'TabSeparated';

/**
 * URL parameters that are not engine settings. `user`, `quota_key` and `role` are ignored: the front
 * has one user, whose `password` the server checks before a query is read. `wait_end_of_query` is always in
 * effect, since every result is complete before it is sent.
 */
const NOT_SETTINGS = new Set([
  'query',
  'database',
  'query_id',
  'default_format',
  'user',
  'password',
  'quota_key',
  'role',
  'wait_end_of_query',
  'buffer_size',
]);
/** What the server offers that this front does not: a request using it fails rather than behaving differently. */
const UNSUPPORTED = new Map([
  ['session_id', 'sessions'],
  ['session_timeout', 'sessions'],
  ['session_check', 'sessions'],
  ['compress', "ClickHouse's native response compression (compress=1)"],
  ['decompress', "ClickHouse's native request compression (decompress=1)"],
]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PARAM_PREFIX = 'param_';

/**
 * The statement of a request, as the server reads it: the `query` URL parameter, then (after a line
 * break) the body; `param_<name>` are query parameters and every other parameter not in
 * `NOT_SETTINGS` is a setting.
 */
export function queryOf(search: URLSearchParams, body: string): HttpQuery {
  const params = new Map<string, string>();
  const settings = new Map<string, string>();
  for (const [name, value] of search) {
    const unsupported = UNSUPPORTED.get(name);
    if (unsupported !== undefined && value !== '' && value !== '0') {
      throw ClickHouseException.of(
        NOT_IMPLEMENTED,
        'NOT_IMPLEMENTED',
        `${unsupported} not supported by this chdb HTTP front (parameter ${name})`,
      );
    }
    if (name.startsWith(PARAM_PREFIX)) params.set(identifier(name.slice(PARAM_PREFIX.length), 'query parameter'), value);
    else if (!NOT_SETTINGS.has(name) && unsupported === undefined) settings.set(identifier(name, 'setting'), value);
  }
  const sql = [search.get('query') ?? '', body].filter((part) => part !== '').join('\n');
  if (sql.trim() === '') throw ClickHouseException.of(SYNTAX_ERROR, 'SYNTAX_ERROR', 'Empty query');
  return {
    sql,
    database: nonEmpty(search.get('database')),
    params,
    settings,
    format: nonEmpty(search.get('default_format')) ?? SERVER_DEFAULT_FORMAT,
    queryId: nonEmpty(search.get('query_id')) ?? randomUUID(),
  };
}

/**
 * The request body as text, decompressed as its `Content-Encoding` says (gzip, deflate, br: what
 * `@clickhouse/client` may send). Bodies are held in memory, so they may not exceed `maxBytes`
 * (decompressed): a larger one fails with 413, and the rest of it is left unread so that the answer
 * reaches the client while it is still sending.
 */
export async function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  if ((request.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
    throw ClickHouseException.of(
      NOT_IMPLEMENTED,
      'NOT_IMPLEMENTED',
      'query parameters in a multipart body are not supported by this chdb HTTP front: turn off use_multipart_params',
    );
  }
  const body = decoded(request);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= maxBytes) return;
      body.pause();
      body.removeAllListeners('data');
      reject(
        ClickHouseException.of(
          TOO_MANY_BYTES,
          'TOO_MANY_BYTES',
          `the request body exceeds the ${maxBytes} bytes this chdb HTTP front holds in memory`,
          413,
        ),
      );
    });
    body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    const unread = (reason: string) =>
      reject(ClickHouseException.of(CANNOT_READ_ALL_DATA, 'CANNOT_READ_ALL_DATA', `cannot read the request body: ${reason}`));
    body.on('error', (error) => unread(error.message));
    // After 'end' this changes nothing; before it, the client went away mid-body.
    body.on('close', () => unread('the connection closed before the body ended'));
  });
}

function decoded(request: IncomingMessage): Readable {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decompressor = DECOMPRESSORS.get(encoding);
  if (decompressor === undefined) {
    throw ClickHouseException.of(
      NOT_IMPLEMENTED,
      'NOT_IMPLEMENTED',
      `Content-Encoding ${encoding} is not supported by this chdb HTTP front (gzip, deflate, br are)`,
    );
  }
  // pipeline (unlike pipe) hands a failure of the request (or of the decompressor) to the stream read.
  return decompressor === 'none' ? request : pipeline(request, decompressor(), () => undefined);
}

const DECOMPRESSORS = new Map<string, (() => Transform) | 'none'>([
  ['identity', 'none'],
  ['gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

/** Names end up in `SET` statements, so they must be plain identifiers (as the server's are). */
function identifier(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) throw ClickHouseException.of(BAD_ARGUMENTS, 'BAD_ARGUMENTS', `invalid ${what} name ${JSON.stringify(name)}`);
  return name;
}

function nonEmpty(value: string | null): string | undefined {
  return value === null || value === '' ? undefined : value;
}

/** A `KILL QUERY` of one query by its id, which this front serves itself (see `killOf`). */
export interface QueryKill {
  readonly queryId: string;
  /** `SYNC`: answered once the query has stopped. */
  readonly sync: boolean;
}

/**
 * `KILL QUERY WHERE query_id = <'id' or {name:String}> [SYNC | ASYNC]`, the form clients stop a query
 * of theirs with: the query ids of this front are the requests', which the engine does not know, so
 * the front stops the statement itself. Any other statement (another KILL too) is the engine's.
 */
export function killOf(query: HttpQuery): QueryKill | undefined {
  const match =
    /^\s*KILL\s+QUERY\s+WHERE\s+query_id\s*=\s*(?:'([^'\\]*)'|\{(\w+)\s*:\s*String\s*\})\s*(SYNC|ASYNC)?\s*(?:FORMAT\s+\w+\s*)?;?\s*$/i.exec(
      query.sql,
    );
  if (match === null) return undefined;
  const [, literal, param, mode] = match;
  const queryId = literal ?? query.params.get(param);
  if (queryId === undefined) throw ClickHouseException.of(BAD_ARGUMENTS, 'BAD_ARGUMENTS', `query parameter ${param} is not set`);
  return { queryId, sync: mode?.toUpperCase() === 'SYNC' };
}
