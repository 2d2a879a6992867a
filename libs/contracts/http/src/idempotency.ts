/**
 * Idempotent requests: a POST, PATCH or DELETE of the public API that carries an `Idempotency-Key` is
 * run at most once per account and key while the key is remembered; a retry gets the first answer
 * again. The gateway enforces it (`libs/gateway/src/idempotency`); these are the numbers it and the
 * OpenAPI document share.
 */

/** The request header naming a request, chosen by the client (a UUID, say). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Set to `true` on an answer that is the stored answer of an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** The longest key, in characters (printable ASCII, so also bytes). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Printable ASCII (space to `~`), 1 to 255 characters: what a key may hold. */
export const IDEMPOTENCY_KEY_PATTERN = `^[\\x20-\\x7E]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`;

/** The methods a key applies to; any other method ignores the header (GET is safe to retry anyway). */
export const IDEMPOTENT_METHODS: readonly string[] = ['POST', 'PATCH', 'DELETE'];

/** How long a key is remembered by default (`GUIDEPOST_IDEMPOTENCY_KEY_TTL_SECONDS`), from its first request. */
export const IDEMPOTENCY_KEY_DEFAULT_TTL_HOURS = 24;

/**
 * The largest answer body that is stored for replay. A larger answer is sent as usual but not stored,
 * and the key is released, so a retry runs again (no operation of the API answers that much to a write).
 */
export const IDEMPOTENT_ANSWER_MAX_BYTES = 1024 * 1024;

/**
 * Statuses that are never stored: they say nothing about the request itself (credentials, access,
 * time, a concurrent request, throttling), so a retry must be judged afresh. 5xx are not stored either.
 */
export const IDEMPOTENCY_UNSTORED_STATUSES: readonly number[] = [401, 403, 408, 409, 429];

/** Whether an answer with this status is final for its request, and so stored and replayed. */
export function isFinalAnswerStatus(status: number): boolean {
  return status >= 200 && status < 500 && !(status >= 300 && status < 400) && !IDEMPOTENCY_UNSTORED_STATUSES.includes(status);
}
