import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { asyncAcknowledgement, type AsyncAcknowledgement } from '@guidepost/contracts-http';
import { AppConfig } from '@guidepost/platform-config';
import { ValidBody } from '@guidepost/platform-http';
import { EventExportService } from '../application/event-export.service';
import { type ExportRequestFields, parseExportRequest } from '../application/export-request';

/** `POST /export/events`: 202 with the job once the request is valid and announced. */
@Controller('v2/accounts/:account_id/export/events')
export class EventExportController {
  constructor(
    private readonly exports: EventExportService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  async export(
    @Param('account_id') accountId: string,
    @ValidBody(parseExportRequest) request: ExportRequestFields,
  ): Promise<AsyncAcknowledgement> {
    const job = await this.exports.request(accountId, request);
    return asyncAcknowledgement(this.config.publicUrl, accountId, job.id);
  }
}
