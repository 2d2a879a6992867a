import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { INTERNAL_CREDENTIAL_REQUIRED, InternalCredential } from './internal-credential';

/**
 * Protects the internal API (`/internal/v1/...`) in every shape. In the standalone shape the gateway's
 * checks cover only `/v2/` and no internal token is configured, so these routes answer 404 like any
 * unknown route; with a token, a caller must present it (401 otherwise).
 */
@Injectable()
export class InternalCallerGuard implements CanActivate {
  private readonly credential: InternalCredential;

  constructor(config: AppConfig) {
    this.credential = new InternalCredential(config.internalToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // The wording of the router's own 404, so the internal API's presence is not revealed.
    if (!this.credential.configured) throw new DomainError('not_found', `Cannot ${request.method} ${request.url}`);
    if (!this.credential.isPresentedBy(request.headers)) throw new DomainError('unauthenticated', INTERNAL_CREDENTIAL_REQUIRED);
    return true;
  }
}
