import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { IngestionFilteringRules } from '@guidepost/contracts-events';
import { FilteringRulesCopy, InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { INGESTION_SCHEMA } from '../../ingestion-schema';

/**
 * The ingestion service's copy of the accounts' ingestion filtering rules (the content service's
 * `FilteringRulesAuthority` holds the originals).
 */
@Injectable()
export class IngestionFilteringRulesCopy extends FilteringRulesCopy {
  private readonly manager: EntityManager;

  constructor(@InjectUnitOfWork(INGESTION_SCHEMA) unitOfWork: UnitOfWork) {
    super(`${INGESTION_SCHEMA}.filtering_rules`);
    this.manager = unitOfWork.dataSource.manager;
  }

  /** The account's rules outside any transaction (the intakes read them on their own, through a cache). */
  storedRulesOf(accountId: string): Promise<IngestionFilteringRules | null> {
    return this.find(this.manager, accountId);
  }
}
