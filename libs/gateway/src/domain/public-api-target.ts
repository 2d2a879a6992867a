/** Whether a request is a public API call and, if so, which account its path names. */
export type PublicApiTarget = { readonly guarded: false } | { readonly guarded: true; readonly accountId: string | undefined };

export interface RequestLocation {
  /** The raw request target, query string included. */
  readonly url: string;
  /** The pattern of the route the router matched (`/v2/accounts/:account_id/flows`); undefined for a 404. */
  readonly routePattern: string | undefined;
  /** The `account_id` route parameter as the router decoded it, when the route has one. */
  readonly accountParam: string | undefined;
}

const PUBLIC_PREFIX = '/v2/';
const ACCOUNT_PATH = /^\/v2\/accounts\/([^/]+)/;

/**
 * Decides from where a request goes. Everything under `/v2/` needs credentials, unknown routes too, so
 * a 404 reveals nothing to an anonymous caller. The router percent-decodes paths before matching
 * (`/%762/...` reaches `/v2/...`), so the decision looks at the matched route and at the decoded path,
 * never at the raw text alone.
 */
export function publicApiTarget(location: RequestLocation): PublicApiTarget {
  const path = normalisedPath(location.url);
  const guarded = (location.routePattern ?? '').startsWith(PUBLIC_PREFIX) || path.startsWith(PUBLIC_PREFIX);
  if (!guarded) return { guarded: false };
  return { guarded: true, accountId: location.accountParam ?? ACCOUNT_PATH.exec(path)?.[1] };
}

function normalisedPath(url: string): string {
  const path = url.split(/[?#]/, 1)[0];
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: the router refuses such a URL anyway; judge it by its raw text.
  }
  return decoded.replace(/\/{2,}/g, '/');
}
