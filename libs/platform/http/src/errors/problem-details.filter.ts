import type { IncomingMessage } from 'node:http';
import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, throwError } from 'rxjs';
import { AppConfig } from '@guidepost/platform-config';
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
    if (bodyStillArriving(request.raw)) settleUnreadBody(request.raw, reply);
    void reply
      .status(problem.status)
      .headers(problem.headers)
      .type('application/json; charset=utf-8')
      .send(problem.body);
  }
}

/** Up to this size an unread body is read and discarded; beyond it the connection is closed instead. */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

/**
 * A request refused before its body was read (413, 415, 401...): closing the connection at once makes
 * many clients fail with EPIPE while still uploading, so they never see the Problem. A body of known,
 * moderate size is drained so the client reads the answer and the connection stays usable; a huge or
 * unbounded one is cut off, since the rest would otherwise arrive where the next request is expected.
 */
function settleUnreadBody(request: IncomingMessage, reply: FastifyReply): void {
  const declaredBytes = Number(request.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declaredBytes) && declaredBytes <= MAX_DRAINED_BYTES) {
    reply.removeHeader('connection');
    request.resume();
  } else {
    reply.header('connection', 'close');
  }
}

function bodyStillArriving(request: IncomingMessage): boolean {
  const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  return hasBody && !request.complete;
}
