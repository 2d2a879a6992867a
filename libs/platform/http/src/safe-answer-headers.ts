/**
 * What every answer of the API tells whoever handles it, problems included, in both shapes:
 * - `X-Content-Type-Options: nosniff`: its `Content-Type` is what it is, so a browser never reads a
 *   JSON or CSV answer that holds end-user text as HTML or script;
 * - `Cache-Control: no-store`: it holds an account's data, which no browser or shared cache between
 *   the client and the ingress may keep and hand to someone else. An answer that chose its own
 *   caching (the API reference and the OpenAPI document, which hold no account data) keeps it.
 */
export const SAFE_ANSWER_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
} as const;

/** The caching of an answer that says nothing of its own. */
export const NO_STORE = SAFE_ANSWER_HEADERS['Cache-Control'];
