import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ImportKind } from '@guidepost/contracts-events';
import { asyncAcknowledgement, type AsyncAcknowledgement } from '@guidepost/contracts-http';
import { AcceptsBody, InboundBody, PublicBaseUrl } from '@guidepost/platform-http';
import { ImportStaging } from '../application/import-staging.service';

/**
 * `POST /import/{profiles,groups,events}`: NDJSON, CSV or an uploaded file of either (JSON is 415).
 * 202 once the upload is stored; the rows are read by the import worker.
 */
@Controller('v2/accounts/:account_id/import')
export class ImportsController {
  constructor(private readonly staging: ImportStaging) {}

  @Post('profiles')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('ndjson', 'csv', 'file')
  profiles(
    @Param('account_id') accountId: string,
    @InboundBody() body: InboundBody,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    return this.stage(accountId, ImportKind.Profiles, body, baseUrl);
  }

  @Post('groups')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('ndjson', 'csv', 'file')
  groups(
    @Param('account_id') accountId: string,
    @InboundBody() body: InboundBody,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    return this.stage(accountId, ImportKind.Groups, body, baseUrl);
  }

  @Post('events')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('ndjson', 'csv', 'file')
  events(
    @Param('account_id') accountId: string,
    @InboundBody() body: InboundBody,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    return this.stage(accountId, ImportKind.Events, body, baseUrl);
  }

  private async stage(accountId: string, kind: ImportKind, body: InboundBody, baseUrl: string): Promise<AsyncAcknowledgement> {
    const job = await this.staging.stage(accountId, kind, body, baseUrl);
    return asyncAcknowledgement(baseUrl, accountId, job.id);
  }
}
