import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, throwError } from 'rxjs';
import { AppConfig } from '@guidepost/platform-config';
import { reasonOf } from '@guidepost/platform-failures';
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
    if (problem.status >= 500) this.log(error, problem.status, request);
    if (reply.sent) return;
    settleUnreadBody(request.raw, reply);
    void reply.status(problem.status).headers(problem.headers).type('application/json; charset=utf-8').send(problem.body);
  }

  /**
   * A 500 is a defect: an error, with its stack. Any other 5xx was foreseen and told to the client (a
   * store or service away, a query past its time budget: retry later), so it is a warning of one line:
   * under an outage or an overload, a stack per request would bury the defects.
   */
  private log(error: unknown, status: number, request: FastifyRequest): void {
    if (status === 500) {
      this.logger.error(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const cause = error instanceof Error && error.cause !== undefined ? ` (cause: ${reasonOf(error.cause)})` : '';
    this.logger.warn(`${request.method} ${request.url} answered ${status}: ${reasonOf(error)}${cause}`);
  }
}
