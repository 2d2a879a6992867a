import type { IncomingHttpHeaders } from 'node:http';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENT_METHODS } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';

const KEY_HEADER = IDEMPOTENCY_KEY_HEADER.toLowerCase();
const VALID_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The request's `Idempotency-Key` when its method takes one (POST, PATCH, DELETE), undefined when it
 * sent none or its method ignores it. Throws a 400 naming the header for a key that is empty, longer
 * than 255 characters or not printable ASCII (Node has already trimmed the spaces around it).
 */
export function idempotencyKeyOf(method: string, headers: IncomingHttpHeaders): string | undefined {
  if (!IDEMPOTENT_METHODS.includes(method)) return undefined;
  const value = headers[KEY_HEADER];
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (!VALID_KEY.test(key)) {
    throw new DomainError(
      'invalid_request',
      `${IDEMPOTENCY_KEY_HEADER}: must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (a UUID, say)` +
        (key.length === 0 ? '; it is empty' : key.length > IDEMPOTENCY_KEY_MAX_LENGTH ? `; it has ${key.length}` : ''),
    );
  }
  return key;
}

/**
 * The answer headers a replay repeats: what describes the body and where the result lives. Not the
 * rate limit, request id or version (each answer has its own), nor framing (`Content-Length` follows
 * the body) or cookies.
 */
const REPLAYED_HEADERS = [
  'content-type',
  'content-encoding',
  'content-language',
  'content-disposition',
  'content-location',
  'location',
  'link',
  'etag',
  'last-modified',
  'allow',
];

export function replayableHeaders(
  headers: Readonly<Record<string, string | number | readonly string[] | undefined>>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}
