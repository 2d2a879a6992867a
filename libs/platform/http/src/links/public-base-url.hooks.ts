import type { TLSSocket } from 'node:tls';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PUBLIC_BASE_URL_HEADER } from '@guidepost/contracts-http';
import type { AppConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { InternalCredential } from '../auth/internal-credential';
import { type LinkOrigin, publicBaseUrlOf } from './public-base-url';

/** Each request's base URL, derived once, before authentication, by the hook `recordPublicBaseUrls` installs. */
const baseUrlsByRequest = new WeakMap<FastifyRequest, string>();

/**
 * Installs the `onRequest` hook that derives every request's public base URL (`publicBaseUrlOf`) and
 * refuses with 400 a request whose host cannot be one, before anything acts on it. Every answer and
 * every job a request creates take their links from here (`requestBaseUrl`, `@PublicBaseUrl()`).
 */
export function recordPublicBaseUrls(fastify: FastifyInstance, config: AppConfig): void {
  const internalCaller = new InternalCredential(config.internalToken);
  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (error?: DomainError) => void) => {
    const reading = publicBaseUrlOf(linkOriginOf(request, config, internalCaller), config.explicitPublicUrl);
    if (reading.problem !== undefined) return done(new DomainError('invalid_request', reading.problem));
    baseUrlsByRequest.set(request, reading.baseUrl);
    done();
  });
}

function linkOriginOf(request: FastifyRequest, config: AppConfig, internalCaller: InternalCredential): LinkOrigin {
  const { headers } = request;
  return {
    host: headers.host,
    encrypted: (request.raw.socket as Partial<TLSSocket>).encrypted === true,
    forwarded: config.trustedProxies.trusts(request.socket.remoteAddress)
      ? { host: headers['x-forwarded-host'], proto: headers['x-forwarded-proto'] }
      : undefined,
    stated: internalCaller.isPresentedBy(headers) ? headers[PUBLIC_BASE_URL_HEADER] : undefined,
  };
}

/** The base URL of the links of this request's answer (no trailing slash). */
export function requestBaseUrl(request: FastifyRequest): string {
  const baseUrl = baseUrlsByRequest.get(request);
  if (baseUrl === undefined) throw new Error('no public base URL was recorded for this request: configureHttpServer installs the hook');
  return baseUrl;
}

/** A handler parameter: the base URL of the links of the request's answer, and of the jobs it creates. */
export const PublicBaseUrl = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  requestBaseUrl(context.switchToHttp().getRequest<FastifyRequest>()),
);
