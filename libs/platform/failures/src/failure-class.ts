/**
 * Why a piece of work failed decides what happens to the message that carried it, in the outbox relay
 * and in every consumer of both shapes:
 * - `transient`: a dependency is down, unreachable, overloaded or not ready (connection refused or
 *   reset, a timeout, PostgreSQL restarting, ClickHouse or MinIO unavailable, Kafka moving leaders).
 *   The same work succeeds once the dependency is back, so it is retried with back-off for as long as
 *   the outage lasts and never given up on: giving up would lose data that was acknowledged.
 * - `permanent`: the message itself can never be handled (it does not match its schema, the broker
 *   refuses it as too large, the data cannot be stored). Retrying cannot help: it is dead-lettered at
 *   once with its reason.
 * - `unrecognised`: anything else, most likely a defect met by this message. It is retried a few times
 *   (a fluke passes) and then dead-lettered, where it waits to be looked at and replayed.
 *
 * Code that knows better says so on the error itself: `transient = true` or `permanent = true` (the
 * classes below, or any error with that property, so libraries need not import this module), or
 * `transient = false` for `unrecognised` whatever its causes show (a query stopped by its time budget
 * has a ClickHouse timeout as cause, yet may never pass: it is tried a few times, not waited out).
 */
export type FailureClass = 'transient' | 'permanent' | 'unrecognised';

/** A failure that passes once a dependency is back. */
export class TransientFailure extends Error {
  readonly transient = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransientFailure';
  }
}

/** A failure that no retry can mend. */
export class PermanentFailure extends Error {
  readonly permanent = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentFailure';
  }
}

/** Socket and DNS errors of Node and undici: the other side is unreachable for now. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ESOCKETTIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * PostgreSQL SQLSTATEs that pass: connection exceptions (class 08), insufficient resources (53), the
 * server shutting down or starting (57P01-57P03), lost races (serialization failure, deadlock, lock
 * not available) and a cancelled statement (a timeout).
 */
const POSTGRES_TRANSIENT_CLASSES = ['08', '53'];
const POSTGRES_TRANSIENT_STATES = new Set(['57P01', '57P02', '57P03', '57014', '40001', '40P01', '55P03']);
/** Data exceptions (22) and program limits (54): the rows themselves cannot be stored. */
const POSTGRES_PERMANENT_CLASSES = ['22', '54'];

/**
 * ClickHouse exception codes that pass: timeouts, too many queries or connections, network errors,
 * memory pressure, a read-only replica, too many parts (inserts faster than merges), a lost keeper.
 */
const CLICKHOUSE_TRANSIENT_CODES = new Set(['159', '160', '202', '203', '209', '210', '241', '242', '252', '319', '425', '999']);

/**
 * S3 (MinIO) error codes that pass: the server is busy, starting or failing internally, or cannot
 * reach enough of its drives for now (MinIO says `SlowDownRead`/`SlowDownWrite` since it stopped
 * saying `XMinioInsufficient*Quorum`, and a MinIO that lost half its drives says its buckets do not
 * exist). A service's bucket is made at start-up and watched by its readiness probe, so `NoSuchBucket`
 * is the store failing (or an operator's slip), to be waited out like an outage, never a message's fault.
 */
const S3_TRANSIENT_CODES = new Set([
  'NoSuchBucket',
  'SlowDown',
  'SlowDownRead',
  'SlowDownWrite',
  'ServiceUnavailable',
  'ServerBusy',
  'TooManyRequests',
  'InternalError',
  'RequestTimeout',
  'XMinioServerNotInitialized',
  'XMinioIAMNotInitialized',
  'XMinioBucketMetadataNotInitialized',
  'XMinioStorageFull',
  'XMinioInsufficientReadQuorum',
  'XMinioInsufficientWriteQuorum',
]);

/**
 * Messages of clients that say a connection was lost, or a server said nothing in time, without a
 * code: pg ("Connection terminated unexpectedly", "timeout exceeded when trying to connect" from a
 * pool and "timeout expired" from a client past `connectionTimeoutMillis`, "Query read timeout" past
 * `query_timeout`), TypeORM, undici ("fetch failed" with the
 * cause above), Node's http ("socket hang up"), @clickhouse/client ("Timeout error").
 */
const UNREACHABLE_MESSAGE =
  /connection terminated|terminating connection|timeout exceeded when trying to connect|query read timeout|^timeout expired$|connection (?:is )?not (?:open|established)|not queryable|socket hang up|^timeout error|the database system is (?:starting up|shutting down|in recovery mode)|server closed the connection/i;

/**
 * minio (the JavaScript client, since 8.0) sends a request again once when the server answers 408,
 * 429, 499, 500, 502, 503, 504 or 520; when the second answer is one of those too, it throws a plain
 * Error that keeps only the status: `Request failed after 1 retries: Error: Retryable HTTP status: 503`.
 * Every status it retries is a server busy, starting or cut off from its drives: transient.
 */
const CLIENT_RETRIES_EXHAUSTED_MESSAGE = /Retryable HTTP status: (?:408|429|499|500|502|503|504|520)\b/;

/** The class of a failure: the first link of its chain that says or shows one decides. */
export function classifyFailure(error: unknown): FailureClass {
  for (const link of errorChain(error)) {
    const found = classOfLink(link);
    if (found) return found;
  }
  return 'unrecognised';
}

function classOfLink(link: object): FailureClass | undefined {
  const fields = link as Record<string, unknown>;
  if (fields.permanent === true) return 'permanent';
  if (fields.transient === true) return 'transient';
  if (fields.transient === false) return 'unrecognised';
  // kafkajs marks the protocol errors a retry can mend.
  if (fields.retriable === true) return 'transient';
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  if (code !== undefined) {
    const known = classOfCode(code);
    if (known) return known;
  }
  if (
    typeof fields.name === 'string' &&
    /^KafkaJS(?:Connection|RequestTimeout|NumberOfRetriesExceeded|Broker(?:Not)?Found|LockTimeout)Error$/.test(fields.name)
  ) {
    return 'transient';
  }
  const message = typeof fields.message === 'string' ? fields.message : '';
  return UNREACHABLE_MESSAGE.test(message) || CLIENT_RETRIES_EXHAUSTED_MESSAGE.test(message) ? 'transient' : undefined;
}

function classOfCode(code: string): FailureClass | undefined {
  if (UNREACHABLE_CODES.has(code) || S3_TRANSIENT_CODES.has(code) || CLICKHOUSE_TRANSIENT_CODES.has(code)) return 'transient';
  if (/^[0-9A-Z]{5}$/.test(code)) {
    if (POSTGRES_TRANSIENT_STATES.has(code) || POSTGRES_TRANSIENT_CLASSES.includes(code.slice(0, 2))) return 'transient';
    if (POSTGRES_PERMANENT_CLASSES.includes(code.slice(0, 2))) return 'permanent';
  }
  return undefined;
}

/**
 * The error, its causes, the errors it aggregates (kafkajs and `Promise.any` wrap errors) and the
 * driver error TypeORM wraps, breadth first so the outermost explicit mark wins.
 */
export function errorChain(error: unknown): object[] {
  const chain: object[] = [];
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const link = pending.shift();
    if (link === null || typeof link !== 'object' || seen.has(link)) continue;
    seen.add(link);
    chain.push(link);
    const { cause, errors, driverError, originalError } = link as Record<string, unknown>;
    pending.push(cause, driverError, originalError, ...(Array.isArray(errors) ? (errors as unknown[]) : []));
  }
  return chain;
}

export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
