import {
  type CallHandler,
  Controller,
  type ExecutionContext,
  Get,
  HttpCode,
  HttpStatus,
  Injectable,
  type NestInterceptor,
  Param,
  Post,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import type { HttpArgumentsHost } from '@nestjs/common/interfaces';
import { catchError, mergeMap, type Observable } from 'rxjs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ANALYTICS_HEADERS,
  type AnalyticsExportAcknowledgement,
  analyticsExportAcknowledgement,
  type AnalyticsExportStatus,
} from '@guidepost/contracts-http';
import { IdentifierParam, PublicBaseUrl, ValidBody } from '@guidepost/platform-http';
import { AnalyticsExports } from '../application/analytics-exports.service';
import { AnalyticsQueries, type Concurrency, ConcurrencyExceeded } from '../application/analytics-queries.service';
import { type AnalyticsRequest, type AnalyticsSpec, checkedAnalyticsRequest, syncAnalyticsSpecOf } from '../application/analytics-spec';

/**
 * Every answer of a query carries the account's concurrency, a 400 of its body too (checked before the
 * handler runs): set here first, then by the handler with the figures of its own run.
 */
@Injectable()
class ConcurrencyHeaders implements NestInterceptor {
  constructor(private readonly queries: AnalyticsQueries) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const accountId = accountIdOf(http);
    concurrencyHeaders(http.getResponse<FastifyReply>(), this.queries.concurrencyOf(accountId));
    return next.handle();
  }
}

/**
 * The answers of the export routes carry the account's job slots, as clients of the real API read
 * them there (and pace their submits by them): the slots imports and exports share, and how many are
 * busy once the route has done its work. A 4xx carries them too; a store that cannot count leaves
 * them out rather than fail the answer.
 */
@Injectable()
class JobSlotHeaders implements NestInterceptor {
  constructor(private readonly exports: AnalyticsExports) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const accountId = accountIdOf(http);
    const withSlots = async (): Promise<void> => {
      const slots = await this.exports.jobSlots(accountId).catch(() => undefined);
      if (slots) concurrencyHeaders(http.getResponse<FastifyReply>(), slots);
    };
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        await withSlots();
        return body;
      }),
      catchError(async (error: unknown) => {
        await withSlots();
        throw error;
      }),
    );
  }
}

/** The account of the route (`:account_id`), as the interceptors see it before the handler runs. */
function accountIdOf(http: HttpArgumentsHost): string {
  return http.getRequest<FastifyRequest<{ Params: { account_id: string } }>>().params.account_id;
}

/** Analytics over the account's events: a query answered at once, or run as an export job. */
@Controller('v2/accounts/:account_id/analytics')
export class AnalyticsController {
  constructor(
    private readonly queries: AnalyticsQueries,
    private readonly exports: AnalyticsExports,
  ) {}

  /** 200 with the rows; `X-Rows-Truncated: true` when clamped, the account's query load in the concurrency headers. */
  @Post('query')
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(ConcurrencyHeaders)
  async query(
    @Param('account_id') accountId: string,
    @ValidBody(syncAnalyticsSpecOf) spec: AnalyticsSpec,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown[]> {
    try {
      const answer = await this.queries.query(accountId, spec, abandonedWhenClientLeaves(reply));
      concurrencyHeaders(reply, answer.concurrency);
      if (answer.truncated) void reply.header(ANALYTICS_HEADERS.rowsTruncated, 'true');
      return answer.rows;
    } catch (error) {
      concurrencyHeaders(reply, error instanceof ConcurrencyExceeded ? error.concurrency : this.queries.concurrencyOf(accountId));
      throw error;
    }
  }

  @Post('exports')
  @HttpCode(HttpStatus.ACCEPTED)
  @UseInterceptors(JobSlotHeaders)
  async export(
    @Param('account_id') accountId: string,
    @ValidBody(checkedAnalyticsRequest) request: AnalyticsRequest,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AnalyticsExportAcknowledgement> {
    const job = await this.exports.request(accountId, request, baseUrl);
    return analyticsExportAcknowledgement(baseUrl, accountId, job.id);
  }

  @Get('exports/:job_id')
  @UseInterceptors(JobSlotHeaders)
  async exportStatus(
    @Param('account_id') accountId: string,
    @Param('job_id', IdentifierParam) jobId: string,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AnalyticsExportStatus> {
    return this.exports.status(accountId, jobId, baseUrl);
  }
}

/** Aborted when the connection closes before the answer was sent: nobody waits for it any more. */
function abandonedWhenClientLeaves(reply: FastifyReply): AbortSignal {
  const abandoned = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abandoned.abort();
  });
  return abandoned.signal;
}

function concurrencyHeaders(reply: FastifyReply, { limit, used }: Concurrency): void {
  void reply.header(ANALYTICS_HEADERS.concurrencyLimit, String(limit)).header(ANALYTICS_HEADERS.concurrencyUsed, String(used));
}
