import { Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppConfig } from '@guidepost/platform-config';
import { AUTHENTICATED_ACCOUNT_HEADER } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { AccountStatements } from './account-statement';
import { INTERNAL_CREDENTIAL_REQUIRED, InternalCredential } from './internal-credential';

/** Polled by the orchestrator and Prometheus, which hold no token; they reveal nothing about accounts. */
const PROBE_ROUTES = new Set(['/health/live', '/health/ready', '/metrics']);

/** The public routes of one account: served only for the account the gateway authenticated. */
const ACCOUNT_ROUTE = '/v2/accounts/:account_id';
/** The internal API: called by the services themselves, never on behalf of a client of the gateway. */
const INTERNAL_ROUTE = '/internal/';

/**
 * Makes a service of the distributed shape answer only the gateway and the other services: a Fastify
 * `onRequest` hook (before any body is read, for unknown routes too) refuses with 401 every request
 * without the internal token, except the probes. The gateway authenticates the public API, so a
 * service behind it must not be usable by going around it. A host calls `install` before `app.init()`.
 *
 * On a public route of an account, the service also checks that the account in the path it matched is
 * the one the gateway states it authenticated (`AccountStatements`), and refuses any other with 403
 * and a log line; and it refuses the internal API to a request the gateway forwarded for a client (one
 * that carries a statement). Should a spelling of a path ever lead the gateway's routing astray, the
 * request fails here instead of reaching another account's data or acting in the services' name.
 */
@Injectable()
export class InternalCallerHooks {
  private readonly logger = new Logger('Tenancy');

  constructor(private readonly config: AppConfig) {}

  install(fastify: FastifyInstance): void {
    if (this.config.internalToken === undefined) {
      throw new Error('GUIDEPOST_INTERNAL_TOKEN is required: a service of the distributed shape answers only callers that present it');
    }
    const credential = new InternalCredential(this.config.internalToken);
    const statements = new AccountStatements(this.config.internalToken);
    fastify.addHook('onRequest', (request, _reply, done) => {
      if (!isProbe(request) && !credential.isPresentedBy(request.headers))
        return done(new DomainError('unauthenticated', INTERNAL_CREDENTIAL_REQUIRED));
      done(this.accountMismatch(request, statements));
    });
  }

  private accountMismatch(request: FastifyRequest, statements: AccountStatements): DomainError | undefined {
    const route = request.routeOptions.url ?? '';
    if (route.startsWith(INTERNAL_ROUTE))
      return request.headers[AUTHENTICATED_ACCOUNT_HEADER] === undefined
        ? undefined
        : this.refuse(request, 'the internal API, asked for by a client of the gateway');
    if (!route.startsWith(ACCOUNT_ROUTE)) return undefined;
    const stated = statements.statedAccount(request.headers);
    if (stated !== undefined && stated === accountParamOf(request)) return undefined;
    return this.refuse(
      request,
      stated === undefined ? 'the gateway stated no authenticated account' : `the gateway authenticated account ${JSON.stringify(stated)}`,
    );
  }

  /** A 403 as the gateway words it, and a warning for the operator: this is a routing bug or an attack. */
  private refuse(request: FastifyRequest, reason: string): DomainError {
    const accountId = accountParamOf(request);
    this.logger.warn(
      `refused ${request.method} ${request.routeOptions.url} (request ${request.id}) for account ${JSON.stringify(accountId)}: ${reason}`,
    );
    return new DomainError('forbidden', `The API key does not grant access to account '${String(accountId)}'`);
  }
}

function accountParamOf(request: FastifyRequest): unknown {
  return (request.params as Record<string, unknown>)['account_id'];
}

/** Judged by the route the router matched, so no spelling of another path passes for a probe. */
function isProbe(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && PROBE_ROUTES.has(request.routeOptions.url ?? '');
}
