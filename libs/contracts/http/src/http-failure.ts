/** How the HTTP clients of this library (admin, internal) describe a failed call. */

/** The Problem `detail` of an error body, or the raw text when the body is not a Problem. */
export function problemDetail(text: string, statusText: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'detail' in parsed && typeof parsed.detail === 'string') {
      return parsed.detail;
    }
  } catch {
    // Not JSON (a proxy's error page, for instance): fall through to the raw text.
  }
  return text.trim() || statusText;
}

/**
 * `fetch` hides the socket error (ECONNREFUSED, ENOTFOUND...) in `cause`; surface it. Read by shape, not
 * `instanceof`, because undici's errors may come from another realm.
 */
export function describeNetworkError(error: unknown): string {
  const cause = fieldOf(error, 'cause');
  const code = fieldOf(cause, 'code') ?? fieldOf(cause, 'message') ?? fieldOf(error, 'message');
  return typeof code === 'string' ? code : String(error);
}

function fieldOf(value: unknown, field: string): unknown {
  return typeof value === 'object' && value !== null && field in value ? (value as Record<string, unknown>)[field] : undefined;
}
