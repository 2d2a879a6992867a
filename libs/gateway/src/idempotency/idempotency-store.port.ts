/** One key of one account: keys are scoped to the account in the path. */
export interface KeyRef {
  readonly accountId: string;
  readonly key: string;
}

/** What identifies a request before its body is read; the body's digest is compared once it has been. */
export interface RequestLine {
  readonly method: string;
  /** The request target as sent: path and query string. */
  readonly path: string;
}

/** An answer as it is stored and replayed. */
export interface StoredAnswer {
  readonly status: number;
  /** The headers that are replayed (`replayableHeaders`), lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export type ClaimOutcome =
  /** This request holds the key and runs; `token` proves it when it completes, renews or releases the claim. */
  | { readonly kind: 'claimed'; readonly token: string }
  /** Another request holds the key and is still running. */
  | { readonly kind: 'running'; readonly request: RequestLine }
  /** The key's first request was answered: its line, the digest of its body, its answer. */
  | { readonly kind: 'answered'; readonly request: RequestLine; readonly bodySha256: Buffer; readonly answer: StoredAnswer };

export interface ClaimTerms {
  /** How long the key and its answer are remembered, from now (`GUIDEPOST_IDEMPOTENCY_KEY_TTL_SECONDS`). */
  readonly ttlSeconds: number;
  /** How long the claim holds unless renewed: a gateway that died mid-request frees its keys after this. */
  readonly leaseMs: number;
}

/**
 * Where claims and answers live, shared by every gateway replica (PostgreSQL, `idempotency_keys`).
 * An expired key, or a claim whose lease lapsed (its gateway died), counts as free.
 */
export abstract class IdempotencyStore {
  /** Claims the key for this request, or says who holds it. */
  abstract claim(ref: KeyRef, request: RequestLine, terms: ClaimTerms): Promise<ClaimOutcome>;

  /** Extends a claim's lease; false when the claim is no longer this request's. */
  abstract renew(ref: KeyRef, token: string, leaseMs: number): Promise<boolean>;

  /** Stores the answer of the claiming request; false when the claim was no longer its own (nothing stored). */
  abstract complete(ref: KeyRef, token: string, bodySha256: Buffer, answer: StoredAnswer): Promise<boolean>;

  /** Frees the key (the request ended without a final answer), so a retry runs again. */
  abstract release(ref: KeyRef, token: string): Promise<void>;

  /** Deletes up to `limit` expired keys (never a running claim); returns how many. */
  abstract deleteExpired(limit: number): Promise<number>;
}
