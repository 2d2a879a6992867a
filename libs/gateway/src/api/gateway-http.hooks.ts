import { Injectable, Optional } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PublicApiGate } from '../application/public-api-gate';
import { IdempotentRequests } from '../idempotency/idempotent-requests';
import { recordAuthenticatedAccount } from './authenticated-account';

/**
 * Installs the gateway's checks as a Fastify `onRequest` hook: it runs before any body is read and for
 * unknown routes too, so nothing under `/v2/` is reachable without valid credentials. A host calls
 * `install` on its Fastify instance before `app.init()` registers the routes. Failures are thrown as
 * `DomainError`s; the platform's error handler answers them with Problem Details. Then, for the
 * authenticated requests, `Idempotency-Key` (`IdempotentRequests`: its own `preParsing` and `onSend`
 * hooks), when the module provides it.
 */
@Injectable()
export class GatewayHttpHooks {
  constructor(
    private readonly gate: PublicApiGate,
    @Optional() private readonly idempotency?: IdempotentRequests,
  ) {}

  install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', async (request, reply) => {
      const accountId = await this.gate.admit(
        {
          url: request.url,
          routePattern: request.routeOptions.url,
          accountParam: accountParamOf(request),
          authorization: request.headers.authorization,
        },
        (name, value) => void reply.header(name, value),
      );
      if (accountId !== undefined) recordAuthenticatedAccount(request, accountId);
    });
    this.idempotency?.install(fastify);
  }
}

function accountParamOf(request: FastifyRequest): string | undefined {
  const params = request.params;
  if (typeof params !== 'object' || params === null || !('account_id' in params)) return undefined;
  return typeof params.account_id === 'string' ? params.account_id : undefined;
}
