import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '@guidepost/platform-config';
import { DomainError } from '@guidepost/platform-errors';
import { tokenDigest, tokenMatches } from './token-digest';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Protects the admin API: `Authorization: Bearer <GUIDEPOST_ADMIN_TOKEN>`, compared in constant time
 * (over SHA-256 digests, so token length leaks nothing either). With no admin token configured the
 * admin API is closed.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer | undefined;

  constructor(config: AppConfig) {
    this.expected = config.adminToken === undefined ? undefined : tokenDigest(config.adminToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (!tokenMatches(token, this.expected)) {
      throw new DomainError('unauthenticated', 'Authorization: a valid admin bearer token is required');
    }
    return true;
  }
}
