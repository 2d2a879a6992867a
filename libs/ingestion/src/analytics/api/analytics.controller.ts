import { Controller, Get, HttpCode, HttpStatus, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ANALYTICS_HEADERS, type AnalyticsExportStatus, asyncAcknowledgement, type AsyncAcknowledgement } from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { AcceptsBody, IdentifierParam, InboundBody } from '@guidepost/platform-http';
import { AnalyticsExports } from '../application/analytics-exports.service';
import { AnalyticsQueries, type Concurrency, ConcurrencyExceeded } from '../application/analytics-queries.service';
import { analyticsSpecOf } from '../application/analytics-spec';

/** Analytics over the account's events: a query answered at once, or run as an export job. */
@Controller('v2/accounts/:account_id/analytics')
export class AnalyticsController {
  constructor(
    private readonly queries: AnalyticsQueries,
    private readonly exports: AnalyticsExports,
    private readonly config: AppConfig,
  ) {}

  /** 200 with the rows; `X-Rows-Truncated: true` when clamped, the account's query load in the concurrency headers. */
  @Post('query')
  @HttpCode(HttpStatus.OK)
  @AcceptsBody('json')
  async query(
    @Param('account_id') accountId: string,
    @InboundBody() body: InboundBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown[]> {
    try {
      // No body counts as an empty object, so that validation names the missing field.
      const answer = await this.queries.query(accountId, analyticsSpecOf(body.kind === 'json' ? body.value : {}));
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
  @AcceptsBody('json')
  async export(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<AsyncAcknowledgement> {
    const job = await this.exports.request(accountId, body.kind === 'json' ? body.value : {});
    return asyncAcknowledgement(this.config.publicUrl, accountId, job.id);
  }

  @Get('exports/:job_id')
  async exportStatus(@Param('account_id') accountId: string, @Param('job_id', IdentifierParam) jobId: string): Promise<AnalyticsExportStatus> {
    return this.exports.status(accountId, jobId);
  }
}

function concurrencyHeaders(reply: FastifyReply, { limit, used }: Concurrency): void {
  void reply.header(ANALYTICS_HEADERS.concurrencyLimit, String(limit)).header(ANALYTICS_HEADERS.concurrencyUsed, String(used));
}
