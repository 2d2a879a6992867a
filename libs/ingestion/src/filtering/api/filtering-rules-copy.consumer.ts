import { Injectable, type OnModuleInit } from '@nestjs/common';
import { IngestionFilteringRulesChanged } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { FilteringRules } from '../application/filtering-rules.service';
import { IngestionFilteringRulesCopy } from '../data-access/ingestion-filtering-rules-copy.repository';

export const FILTERING_RULES_GROUP = 'ingestion.filtering-rules';

/** Keeps the service's copy of the filtering rules: the newest announced rules of each account. */
@Injectable()
export class FilteringRulesCopyConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly repository: IngestionFilteringRulesCopy,
    private readonly rules: FilteringRules,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: IngestionFilteringRulesChanged,
      group: FILTERING_RULES_GROUP,
      handle: async (message) => {
        await this.unitOfWork.runOnce(FILTERING_RULES_GROUP, message.id, (tx) => this.repository.keepNewest(tx.manager, message.payload));
        // Only after the commit: a read in between would otherwise cache the old rules again.
        this.rules.forget(message.payload.accountId);
      },
    });
  }
}
