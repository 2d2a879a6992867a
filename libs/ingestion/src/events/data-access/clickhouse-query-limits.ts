import { errorChain } from '@guidepost/platform-failures';

/**
 * How ClickHouse says that a limit of the query itself stopped it: by the exception code of a refused
 * query, or by the text of an error met while its rows streamed (a server writes the exception into
 * an answer it had started). Such a failure belongs to the query, not to the store's health: the
 * same query meets the same limit again.
 */

/** `max_execution_time`: TIMEOUT_EXCEEDED (159), TOO_SLOW (160). */
export function stoppedByTimeLimit(error: unknown): boolean {
  return errorChain(error).some((link) => hasCode(link, ['159', '160']) || /\b(?:TIMEOUT_EXCEEDED|TOO_SLOW)\b/.test(textOf(link)));
}

/**
 * `max_memory_usage`, the query's own ceiling (MEMORY_LIMIT_EXCEEDED, 241, worded `Query memory limit
 * exceeded` by recent versions, `Memory limit (for query) exceeded` by older ones). The same
 * code for the server's or the user's ceiling (`(total)`, `(for user)`) is other queries' doing and
 * passes once they end, so it is left to the failure classes (transient).
 */
export function stoppedByQueryMemoryLimit(error: unknown): boolean {
  return errorChain(error).some((link) => /\b(?:Query memory limit exceeded|Memory limit \(for query\) exceeded)/i.test(textOf(link)));
}

function hasCode(link: object, codes: readonly string[]): boolean {
  const { code } = link as { code?: unknown };
  return typeof code === 'string' && codes.includes(code);
}

function textOf(link: object): string {
  const { message } = link as { message?: unknown };
  return typeof message === 'string' ? message : '';
}
