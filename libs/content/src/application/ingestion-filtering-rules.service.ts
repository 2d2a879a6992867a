import { Injectable } from '@nestjs/common';
import { IngestionFilteringRulesChanged } from '@guidepost/contracts-events';
import type { IngestionFilteringRules, IngestionFilteringRulesInput } from '@guidepost/contracts-http';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { CONTENT_SCHEMA } from '../data-access/content-schema';
import { FilteringRulesAuthority } from '../data-access/filtering-rules-authority.repository';
import { defaultFilteringRules, filteringRulesChange, filteringRulesOf, toPublicFilteringRules } from '../domain/ingestion-filtering-rules';

/** The account's ingestion filtering rules: owned here, applied by the services that take data in. */
@Injectable()
export class IngestionFilteringRulesService {
  constructor(
    private readonly rules: FilteringRulesAuthority,
    @InjectUnitOfWork(CONTENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  /** The stored rules, or the default (deny mode, empty lists: nothing dropped) for an account that set none. */
  async get(accountId: string): Promise<IngestionFilteringRules> {
    return toPublicFilteringRules((await this.rules.find(accountId)) ?? defaultFilteringRules(accountId));
  }

  /**
   * Replaces the rules and announces them in the same transaction, so that the services applying
   * them (which keep their own copy) can never miss a committed change.
   */
  async replace(accountId: string, input: IngestionFilteringRulesInput): Promise<IngestionFilteringRules> {
    const rules = filteringRulesOf(accountId, input, new Date());
    await this.unitOfWork.run(async (tx) => {
      await this.rules.replace(tx.manager, rules);
      tx.emit(IngestionFilteringRulesChanged, accountId, filteringRulesChange(rules));
    });
    return toPublicFilteringRules(rules);
  }
}
