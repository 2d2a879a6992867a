import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, throwError } from 'rxjs';
import { AppConfig } from '@guidepost/platform-config';
import { settleUnreadBody } from '../body/unread-body';
import { problemOf } from './problem';

/**
 * Answers every error with Problem Details (`application/json`). Registered as a global filter; Nest
 * also routes Fastify's error handler and its own 404 handler through global filters, so this covers
 * handler errors, unknown routes, content-type parsers and Fastify hooks alike.
 */
@Catch()
@Injectable()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(private readonly config: AppConfig) {}

  catch(error: unknown, host: ArgumentsHost): void | Observable<never> {
    // Message handlers (bus consumers) keep their own error handling.
    if (host.getType() !== 'http') return throwError(() => error);
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const problem = problemOf(error, this.config);
    if (problem.status >= 500) this.logger.error(error instanceof Error ? error : new Error(String(error)));
    if (reply.sent) return;
    settleUnreadBody(request.raw, reply);
    void reply
      .status(problem.status)
      .headers(problem.headers)
      .type('application/json; charset=utf-8')
      .send(problem.body);
  }
}
