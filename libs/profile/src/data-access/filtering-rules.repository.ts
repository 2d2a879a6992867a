import { Injectable } from '@nestjs/common';
import { FilteringRulesCopy } from '@guidepost/platform-database';
import { PROFILE_SCHEMA } from './profile-schema';

/** This service's copy of the accounts' ingestion filtering rules, read in the caller's transaction. */
@Injectable()
export class FilteringRulesRepository extends FilteringRulesCopy {
  constructor() {
    super(`${PROFILE_SCHEMA}.ingestion_filtering_rules`);
  }
}
