import { Controller, Param, Put } from '@nestjs/common';
import {
  type IngestionFilteringRules,
  type IngestionFilteringRulesInput,
  IngestionFilteringRulesInputSchema,
} from '@guidepost/contracts-http';
import { ValidBody } from '@guidepost/platform-http';
import { FlowCatalog, type FlowUpserts, readFlowUpserts } from '../application/flow-catalog.service';
import { IngestionFilteringRulesService } from '../application/ingestion-filtering-rules.service';
import { readTagUpserts, TagCatalog, type TagUpserts } from '../application/tag-catalog.service';
import type { UpsertResult } from './admin-body';

/**
 * The admin surface for content, standing in for the web studio that owns it: each PUT takes a JSON
 * array of records (or one record) and creates or replaces them by id. The experience kinds (pins,
 * mobile, launchpads, ...) have theirs in `experience-kinds.controllers.ts`.
 */
@Controller('admin/v1/accounts/:account_id')
export class ContentAdminController {
  constructor(
    private readonly flows: FlowCatalog,
    private readonly tags: TagCatalog,
    private readonly filteringRules: IngestionFilteringRulesService,
  ) {}

  @Put('flows')
  async upsertFlows(@Param('account_id') accountId: string, @ValidBody(readFlowUpserts) flows: FlowUpserts): Promise<UpsertResult> {
    return { upserted: await this.flows.upsert(accountId, flows) };
  }

  @Put('tags')
  async upsertTags(@Param('account_id') accountId: string, @ValidBody(readTagUpserts) tags: TagUpserts): Promise<UpsertResult> {
    return { upserted: await this.tags.upsert(accountId, tags) };
  }

  /** Replaces the account's rules (omitted lists become empty) and answers the stored record. */
  @Put('ingestion_filtering_rules')
  replaceFilteringRules(
    @Param('account_id') accountId: string,
    @ValidBody(IngestionFilteringRulesInputSchema) rules: IngestionFilteringRulesInput,
  ): Promise<IngestionFilteringRules> {
    return this.filteringRules.replace(accountId, rules);
  }
}
