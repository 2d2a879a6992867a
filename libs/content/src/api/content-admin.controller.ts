import { Controller, Param, Put, UseGuards } from '@nestjs/common';
import type { IngestionFilteringRules } from '@guidepost/contracts-http';
import { AcceptsBody, AdminTokenGuard, InboundBody } from '@guidepost/platform-http';
import { FlowCatalog } from '../application/flow-catalog.service';
import { IngestionFilteringRulesService } from '../application/ingestion-filtering-rules.service';
import { TagCatalog } from '../application/tag-catalog.service';
import { jsonOf, type UpsertResult } from './admin-body';

/**
 * The admin surface for content, standing in for the web studio that owns it: each PUT takes a JSON
 * array of records (or one record) and creates or replaces them by id. The experience kinds (pins,
 * mobile, launchpads, ...) have theirs in `experience-kinds.controllers.ts`.
 */
@Controller('admin/v1/accounts/:account_id')
@UseGuards(AdminTokenGuard)
export class ContentAdminController {
  constructor(
    private readonly flows: FlowCatalog,
    private readonly tags: TagCatalog,
    private readonly filteringRules: IngestionFilteringRulesService,
  ) {}

  @Put('flows')
  @AcceptsBody('json')
  async upsertFlows(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<UpsertResult> {
    return { upserted: await this.flows.upsert(accountId, jsonOf(body)) };
  }

  @Put('tags')
  @AcceptsBody('json')
  async upsertTags(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<UpsertResult> {
    return { upserted: await this.tags.upsert(accountId, jsonOf(body)) };
  }

  /** Replaces the account's rules (omitted lists become empty) and answers the stored record. */
  @Put('ingestion_filtering_rules')
  @AcceptsBody('json')
  replaceFilteringRules(@Param('account_id') accountId: string, @InboundBody() body: InboundBody): Promise<IngestionFilteringRules> {
    return this.filteringRules.replace(accountId, jsonOf(body));
  }
}
