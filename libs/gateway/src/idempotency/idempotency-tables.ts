import type { QueryRunner } from 'typeorm';

/**
 * Creates a schema's `idempotency_keys`: one row per account and `Idempotency-Key`, inserted by the
 * first request with `ON CONFLICT DO NOTHING`, so that of two requests racing on one key (on any
 * gateway replica) exactly one claims it. While the request runs the row holds its `claim_token` and a
 * lease (`locked_until`) that the request renews; once it is answered the row holds the fingerprint of
 * the request (method, path with query, SHA-256 of the body bytes) and the answer (status, the headers
 * that matter, body), until `expires_at`. The sweep deletes expired rows (`idempotency_keys_expiry`).
 */
export async function createIdempotencyKeyTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE "${schema}".idempotency_keys (
      account_id text NOT NULL,
      idempotency_key text NOT NULL,
      request_method text NOT NULL,
      request_path text NOT NULL,
      request_body_sha256 bytea,
      claim_token uuid,
      locked_until timestamptz,
      response_status smallint,
      response_headers jsonb,
      response_body bytea,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, idempotency_key),
      CONSTRAINT idempotency_keys_claimed_or_answered CHECK ((claim_token IS NULL) = (response_status IS NOT NULL))
    )`);
  await queryRunner.query(`CREATE INDEX idempotency_keys_expiry ON "${schema}".idempotency_keys (expires_at)`);
}

export async function dropIdempotencyKeyTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE "${schema}".idempotency_keys`);
}
