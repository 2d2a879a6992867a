import type { DataSource } from 'typeorm';
import {
  type ClaimOutcome,
  type ClaimTerms,
  IdempotencyStore,
  type KeyRef,
  type RequestLine,
  type StoredAnswer,
} from './idempotency-store.port';
import { randomUUID } from 'node:crypto';

interface KeyRow {
  readonly request_method: string;
  readonly request_path: string;
  readonly request_body_sha256: Buffer | null;
  readonly response_status: number | null;
  readonly response_headers: Record<string, string> | null;
  readonly response_body: Buffer | null;
  readonly free: boolean;
}

/** A claim races a release or an expiry at most this many times before the conflict is reported as running. */
const CLAIM_ATTEMPTS = 3;

/**
 * `IdempotencyStore` on the gateway's PostgreSQL schema. A claim is one `INSERT ... ON CONFLICT`: it
 * inserts the row, or takes over a row that is free (expired, or a claim whose lease lapsed), or
 * changes nothing; PostgreSQL's unique index makes one request win however many gateways race.
 */
export class PostgresIdempotencyStore extends IdempotencyStore {
  private readonly table: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    super();
    this.table = `"${schema}".idempotency_keys`;
  }

  async claim(ref: KeyRef, request: RequestLine, terms: ClaimTerms): Promise<ClaimOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      const token = randomUUID();
      const claimed = await this.dataSource.query<unknown[]>(
        `INSERT INTO ${this.table} AS k
           (account_id, idempotency_key, request_method, request_path, claim_token, locked_until, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::double precision), now(),
                 now() + make_interval(secs => $7::double precision))
         ON CONFLICT (account_id, idempotency_key) DO UPDATE SET
           request_method = EXCLUDED.request_method, request_path = EXCLUDED.request_path, request_body_sha256 = NULL,
           claim_token = EXCLUDED.claim_token, locked_until = EXCLUDED.locked_until,
           response_status = NULL, response_headers = NULL, response_body = NULL,
           created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE k.expires_at <= now() OR (k.claim_token IS NOT NULL AND k.locked_until <= now())
         RETURNING 1`,
        [ref.accountId, ref.key, request.method, request.path, token, terms.leaseMs / 1000, terms.ttlSeconds],
      );
      if (claimed.length > 0) return { kind: 'claimed', token };

      const [row] = await this.dataSource.query<KeyRow[]>(
        `SELECT request_method, request_path, request_body_sha256, response_status, response_headers, response_body,
                (expires_at <= now() OR (claim_token IS NOT NULL AND locked_until <= now())) AS free
           FROM ${this.table} WHERE account_id = $1 AND idempotency_key = $2`,
        [ref.accountId, ref.key],
      );
      // Released, expired or lapsed in between: claim again.
      if ((row === undefined || row.free) && attempt < CLAIM_ATTEMPTS) continue;
      if (row === undefined) return { kind: 'running', request };
      const first = { method: row.request_method, path: row.request_path };
      if (row.response_status === null || row.request_body_sha256 === null) return { kind: 'running', request: first };
      return {
        kind: 'answered',
        request: first,
        bodySha256: row.request_body_sha256,
        answer: { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body ?? Buffer.alloc(0) },
      };
    }
  }

  async renew(ref: KeyRef, token: string, leaseMs: number): Promise<boolean> {
    const renewed = await this.dataSource.query<unknown[]>(
      `UPDATE ${this.table} SET locked_until = now() + make_interval(secs => $4::double precision)
        WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $3
        RETURNING 1`,
      [ref.accountId, ref.key, token, leaseMs / 1000],
    );
    return rowsOf(renewed) > 0;
  }

  async complete(ref: KeyRef, token: string, bodySha256: Buffer, answer: StoredAnswer): Promise<boolean> {
    const completed = await this.dataSource.query<unknown[]>(
      `UPDATE ${this.table}
          SET request_body_sha256 = $4, response_status = $5, response_headers = $6::jsonb, response_body = $7,
              claim_token = NULL, locked_until = NULL
        WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $3
        RETURNING 1`,
      [ref.accountId, ref.key, token, bodySha256, answer.status, JSON.stringify(answer.headers), answer.body],
    );
    return rowsOf(completed) > 0;
  }

  async release(ref: KeyRef, token: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.table} WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $3`, [
      ref.accountId,
      ref.key,
      token,
    ]);
  }

  async deleteExpired(limit: number): Promise<number> {
    const deleted = await this.dataSource.query<unknown[]>(
      `DELETE FROM ${this.table}
        WHERE ctid = ANY (ARRAY(
          SELECT ctid FROM ${this.table}
           WHERE expires_at <= now() AND (claim_token IS NULL OR locked_until <= now())
           LIMIT $1))
        RETURNING 1`,
      [limit],
    );
    return rowsOf(deleted);
  }
}

/**
 * TypeORM's PostgreSQL driver answers a raw UPDATE or DELETE with `[rows, affected]` and a SELECT or an
 * INSERT with the rows; with `RETURNING 1` the rows are what counts either way.
 */
function rowsOf(result: unknown[]): number {
  if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0].length;
  return result.length;
}
