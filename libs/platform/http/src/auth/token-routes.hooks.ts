import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { INTERNAL_CREDENTIAL_REQUIRED, InternalCredential } from './internal-credential';
import { tokenDigest, tokenMatches } from './token-digest';

/** The routes of the admin API (admin token) and of the internal API (internal token), by path pattern. */
const ADMIN_ROUTES = '/admin/';
const INTERNAL_ROUTES = '/internal/';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Guards the admin API (`/admin/...`: `Authorization: Bearer <GUIDEPOST_ADMIN_TOKEN>`) and the internal
 * API (`/internal/...`: the internal token) in every host, as a Fastify `onRequest` hook judged by the
 * route the router matched. It runs before any body byte is read, so a request without the token is
 * refused at once however large its body (which is then drained or cut off, see `settleUnreadBody`),
 * and it covers every route under those prefixes: none can be left without its guard.
 *
 * Tokens are compared in constant time, over SHA-256 digests, so their length leaks nothing either.
 * With no admin token configured the admin API is closed (401). Without an internal token (the
 * standalone shape, whose modules call each other in process) the internal API answers 404 like any
 * unknown route, in the router's own words, so its presence is not revealed.
 */
export function installTokenRoutes(fastify: FastifyInstance, config: AppConfig): void {
  const adminToken = config.adminToken === undefined ? undefined : tokenDigest(config.adminToken);
  const internal = new InternalCredential(config.internalToken);
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? '';
    if (route.startsWith(ADMIN_ROUTES)) return done(adminRefusal(request, adminToken));
    if (route.startsWith(INTERNAL_ROUTES)) return done(internalRefusal(request, internal));
    done();
  });
}

function adminRefusal(request: FastifyRequest, expected: Buffer | undefined): DomainError | undefined {
  const header = request.headers.authorization;
  const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (tokenMatches(token, expected)) return undefined;
  return new DomainError('unauthenticated', 'Authorization: a valid admin bearer token is required');
}

function internalRefusal(request: FastifyRequest, credential: InternalCredential): DomainError | undefined {
  if (!credential.configured) return new DomainError('not_found', `Cannot ${request.method} ${request.url}`);
  if (!credential.isPresentedBy(request.headers)) return new DomainError('unauthenticated', INTERNAL_CREDENTIAL_REQUIRED);
  return undefined;
}
