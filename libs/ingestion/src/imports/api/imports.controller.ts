import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ImportKind } from '@guidepost/contracts-events';
import { asyncAcknowledgement, type AsyncAcknowledgement } from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { AcceptsBody, InboundBody } from '@guidepost/platform-http';
import { ImportStaging } from '../application/import-staging.service';

/**
 * `POST /import/{profiles,groups,events}`: NDJSON, CSV or an uploaded file of either (JSON is 415).
 * 202 once the upload is stored; the rows are read by the import worker.
 */
@Controller('v2/accounts/:account_id/import')
export class ImportsController {
  constructor(
    private readonly staging: ImportStaging,
    private readonly config: AppConfig,
  ) {}

  @Post('profiles')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('ndjson', 'csv', 'file')
  profiles(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<AsyncAcknowledgement> {
    return this.stage(accountId, ImportKind.Profiles, body);
  }

  @Post('groups')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('ndjson', 'csv', 'file')
  groups(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<AsyncAcknowledgement> {
    return this.stage(accountId, ImportKind.Groups, body);
  }

  @Post('events')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('ndjson', 'csv', 'file')
  events(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<AsyncAcknowledgement> {
    return this.stage(accountId, ImportKind.Events, body);
  }

  private async stage(accountId: string, kind: ImportKind, body: InboundBody): Promise<AsyncAcknowledgement> {
    const job = await this.staging.stage(accountId, kind, body);
    return asyncAcknowledgement(this.config.publicUrl, accountId, job.id);
  }
}
