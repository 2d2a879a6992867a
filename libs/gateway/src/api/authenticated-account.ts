import type { FastifyRequest } from 'fastify';

/** The account whose API key the gateway checked, by request; requests outside the public API have none. */
const accountsByRequest = new WeakMap<FastifyRequest, string>();

export function recordAuthenticatedAccount(request: FastifyRequest, accountId: string): void {
  accountsByRequest.set(request, accountId);
}

export function authenticatedAccountOf(request: FastifyRequest): string | undefined {
  return accountsByRequest.get(request);
}
