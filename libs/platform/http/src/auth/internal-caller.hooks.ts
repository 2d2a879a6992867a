import { Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { INTERNAL_CREDENTIAL_REQUIRED, InternalCredential } from './internal-credential';

/** Polled by the orchestrator and Prometheus, which hold no token; they reveal nothing about accounts. */
const PROBE_ROUTES = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * Makes a service of the distributed shape answer only the gateway and the other services: a Fastify
 * `onRequest` hook (before any body is read, for unknown routes too) refuses with 401 every request
 * without the internal token, except the probes. The gateway authenticates the public API, so a
 * service behind it must not be usable by going around it. A host calls `install` before `app.init()`.
 */
@Injectable()
export class InternalCallerHooks {
  constructor(private readonly config: AppConfig) {}

  install(fastify: FastifyInstance): void {
    if (this.config.internalToken === undefined) {
      throw new Error('GUIDEPOST_INTERNAL_TOKEN is required: a service of the distributed shape answers only callers that present it');
    }
    const credential = new InternalCredential(this.config.internalToken);
    fastify.addHook('onRequest', (request, _reply, done) => {
      const admitted = isProbe(request) || credential.isPresentedBy(request.headers);
      done(admitted ? undefined : new DomainError('unauthenticated', INTERNAL_CREDENTIAL_REQUIRED));
    });
  }
}

/** Judged by the route the router matched, so no spelling of another path passes for a probe. */
function isProbe(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && PROBE_ROUTES.has(request.routeOptions.url ?? '');
}
