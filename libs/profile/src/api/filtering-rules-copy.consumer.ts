import { Injectable, type OnModuleInit } from '@nestjs/common';
import { IngestionFilteringRulesChanged } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { ProfileFilteringRulesCopy } from '../data-access/profile-filtering-rules-copy.repository';
import { PROFILE_SCHEMA } from '../data-access/profile-schema';

export const FILTERING_RULES_GROUP = 'profile.filtering-rules';

/** Keeps this service's copy of the accounts' ingestion filtering rules (owned by the content service). */
@Injectable()
export class FilteringRulesCopyConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly rules: ProfileFilteringRulesCopy,
    @InjectUnitOfWork(PROFILE_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: IngestionFilteringRulesChanged,
      group: FILTERING_RULES_GROUP,
      handle: async (message) => {
        await this.unitOfWork.runOnce(FILTERING_RULES_GROUP, message.id, (tx) => this.rules.keepNewest(tx.manager, message.payload));
      },
    });
  }
}
