/** What an `Authorization` header says about HTTP Basic credentials. */
export type BasicAuthorization =
  | { readonly kind: 'credentials'; readonly key: string; readonly secret: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed'; readonly reason: string };

const BASIC_SCHEME = /^basic +(\S+)\s*$/i;
// Standard base64 (RFC 7617 uses it); clients differ on padding, so it is optional.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads `Authorization: Basic base64(key:secret)`. The key is everything before the first colon, the
 * secret everything after it (RFC 7617: user ids cannot contain a colon, passwords can).
 */
export function parseBasicAuthorization(header: string | undefined): BasicAuthorization {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = BASIC_SCHEME.exec(header.trim());
  if (!match) return { kind: 'malformed', reason: "expected the 'Basic' scheme followed by base64(API_KEY:API_SECRET)" };
  const encoded = match[1];
  if (!BASE64.test(encoded)) return { kind: 'malformed', reason: 'the credentials are not valid base64' };
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { kind: 'malformed', reason: "the decoded credentials contain no ':' between API key and secret" };
  const key = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  if (key === '') return { kind: 'malformed', reason: 'the API key (user name) is empty' };
  if (secret === '') return { kind: 'malformed', reason: 'the API secret (password) is empty' };
  return { kind: 'credentials', key, secret };
}
