import { Injectable, Optional } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@guidepost/platform-config';
import { type Attempt, AuthenticationThrottle } from '../application/authentication-throttle';
import { PublicApiGate } from '../application/public-api-gate';
import { clientAddressOf } from '../domain/client-address';
import { IdempotentRequests } from '../idempotency/idempotent-requests';
import { recordAuthenticatedAccount } from './authenticated-account';

/** The routes of the admin API, whatever checks their token (a guard of this process or a service behind it). */
const ADMIN_ROUTES = '/admin/';
/** The admin token's name as the throttle's subject: there is one token, so one subject. */
const ADMIN_TOKEN = 'GUIDEPOST_ADMIN_TOKEN';

/**
 * Installs the gateway's checks as a Fastify `onRequest` hook: it runs before any body is read and for
 * unknown routes too, so nothing under `/v2/` is reachable without valid credentials. A host calls
 * `installBeforeCredentials` and `install` on its Fastify instance before `app.init()` registers the
 * routes. Failures are thrown as
 * `DomainError`s; the platform's error handler answers them with Problem Details. Then, for the
 * authenticated requests, `Idempotency-Key` (`IdempotentRequests`: its own `preParsing` and `onSend`
 * hooks), when the module provides it.
 *
 * Repeated failed authentication is throttled on the admin API as on the public API
 * (`AuthenticationThrottle`): a throttled address or token is refused in `onRequest`, before the token
 * is checked, and the answer tells the throttle how an attempt went (401: a wrong token, 2xx: the
 * right one), whether this process checked the token or the service it forwarded the request to.
 */
@Injectable()
export class GatewayHttpHooks {
  private readonly trustedProxyHops: number;

  constructor(
    private readonly gate: PublicApiGate,
    private readonly throttle: AuthenticationThrottle,
    config: AppConfig,
    @Optional() private readonly idempotency?: IdempotentRequests,
  ) {
    this.trustedProxyHops = config.trustedProxyHops;
  }

  /**
   * The throttle of the admin API: its refusal must come before the admin token is checked (by the
   * platform's hook, `configureHttpServer`), so a host installs this in `beforeCredentials`.
   */
  installBeforeCredentials(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request, _reply, done) => {
      const attempt = this.adminAttemptOf(request);
      done(attempt === undefined ? undefined : this.throttle.refusal(attempt));
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      this.recordAdminOutcome(request, reply);
      done();
    });
  }

  install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', async (request, reply) => {
      const accountId = await this.gate.admit(
        {
          url: request.url,
          routePattern: request.routeOptions.url,
          accountParam: accountParamOf(request),
          authorization: request.headers.authorization,
          clientAddress: this.clientAddressOf(request),
        },
        (name, value) => void reply.header(name, value),
      );
      if (accountId !== undefined) recordAuthenticatedAccount(request, accountId);
    });
    this.idempotency?.install(fastify);
  }

  private recordAdminOutcome(request: FastifyRequest, reply: FastifyReply): void {
    const attempt = this.adminAttemptOf(request);
    if (attempt?.subject === undefined) return;
    if (reply.statusCode === 401) this.throttle.failed(attempt);
    else if (reply.statusCode >= 200 && reply.statusCode < 300) this.throttle.succeeded(attempt);
  }

  /** A request of the admin API; with the token as subject when it presents any `Authorization`. */
  private adminAttemptOf(request: FastifyRequest): Attempt | undefined {
    if (!(request.routeOptions.url ?? '').startsWith(ADMIN_ROUTES)) return undefined;
    const subject = request.headers.authorization === undefined ? undefined : ADMIN_TOKEN;
    return { credential: 'admin_token', address: this.clientAddressOf(request), subject };
  }

  private clientAddressOf(request: FastifyRequest): string {
    return clientAddressOf(
      { peerAddress: request.socket.remoteAddress, forwardedFor: request.headers['x-forwarded-for'] },
      this.trustedProxyHops,
    );
  }
}

function accountParamOf(request: FastifyRequest): string | undefined {
  const params = request.params;
  if (typeof params !== 'object' || params === null || !('account_id' in params)) return undefined;
  return typeof params.account_id === 'string' ? params.account_id : undefined;
}
