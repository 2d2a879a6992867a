import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { asyncAcknowledgement, type AsyncAcknowledgement } from '@guidepost/contracts-http';
import { PublicBaseUrl, ValidBody } from '@guidepost/platform-http';
import { EventExportService } from '../application/event-export.service';
import { type ExportRequestFields, parseExportRequest } from '../application/export-request';

/** `POST /export/events`: 202 with the job once the request is valid and announced. */
@Controller('v2/accounts/:account_id/export/events')
export class EventExportController {
  constructor(private readonly exports: EventExportService) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  async export(
    @Param('account_id') accountId: string,
    @ValidBody(parseExportRequest) request: ExportRequestFields,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    const job = await this.exports.request(accountId, request, baseUrl);
    return asyncAcknowledgement(baseUrl, accountId, job.id);
  }
}
