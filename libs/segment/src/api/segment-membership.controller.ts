import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import {
  asyncAcknowledgement,
  type AsyncAcknowledgement,
  type SegmentMembershipExportRequest,
  SegmentMembershipExportRequestSchema,
} from '@guidepost/contracts-http';
import { AcceptsBody, IdentifierParam, InboundBody, PublicBaseUrl, userIdsOf, ValidBody } from '@guidepost/platform-http';
import { MembershipChangeService } from '../application/membership-change.service';
import { MembershipExportService } from '../application/membership-export.service';
import { assertExportablePropertyNames } from '../domain/membership-export-format';
import type { MembershipOperation } from '../domain/membership-progress';

/** The asynchronous segment operations: each answers 202 with the job that reports its outcome. */
@Controller('v2/accounts/:account_id/segments/:segment_id')
export class SegmentMembershipController {
  constructor(
    private readonly changes: MembershipChangeService,
    private readonly exports: MembershipExportService,
  ) {}

  @Post('add_user_ids')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('json', 'ndjson', 'csv', 'file')
  add(
    @Param('account_id') accountId: string,
    @Param('segment_id', IdentifierParam) segmentId: string,
    @InboundBody() body: InboundBody,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    return this.submit(accountId, segmentId, 'add', body, baseUrl);
  }

  @Post('remove_user_ids')
  @HttpCode(HttpStatus.ACCEPTED)
  @AcceptsBody('json', 'ndjson', 'csv', 'file')
  remove(
    @Param('account_id') accountId: string,
    @Param('segment_id', IdentifierParam) segmentId: string,
    @InboundBody() body: InboundBody,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    return this.submit(accountId, segmentId, 'remove', body, baseUrl);
  }

  @Post('segment_membership_export')
  @HttpCode(HttpStatus.ACCEPTED)
  async export(
    @Param('account_id') accountId: string,
    @Param('segment_id', IdentifierParam) segmentId: string,
    @ValidBody(SegmentMembershipExportRequestSchema) request: SegmentMembershipExportRequest,
    @PublicBaseUrl() baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    assertExportablePropertyNames(request.property_names ?? []);
    const job = await this.exports.request(accountId, segmentId, request, baseUrl);
    return asyncAcknowledgement(baseUrl, accountId, job.id);
  }

  private async submit(
    accountId: string,
    segmentId: string,
    operation: MembershipOperation,
    body: InboundBody,
    baseUrl: string,
  ): Promise<AsyncAcknowledgement> {
    const job = await this.changes.submit(accountId, segmentId, operation, userIdsOf(body));
    return asyncAcknowledgement(baseUrl, accountId, job.id);
  }
}
