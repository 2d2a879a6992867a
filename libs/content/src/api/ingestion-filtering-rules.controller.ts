import { Controller, Get, Param } from '@nestjs/common';
import type { IngestionFilteringRules } from '@guidepost/contracts-http';
import { IngestionFilteringRulesService } from '../application/ingestion-filtering-rules.service';

@Controller('v2/accounts/:account_id/ingestion_filtering_rules')
export class IngestionFilteringRulesController {
  constructor(private readonly rules: IngestionFilteringRulesService) {}

  /** One record: the account's rules, or the default (deny mode, empty lists) when it never set any. */
  @Get()
  get(@Param('account_id') accountId: string): Promise<IngestionFilteringRules> {
    return this.rules.get(accountId);
  }
}
