import { Injectable } from '@nestjs/common';
import { FilteringRulesCopy } from '@guidepost/platform-database';
import { PROFILE_SCHEMA } from './profile-schema';

/**
 * The profile service's copy of the accounts' ingestion filtering rules (the content service's
 * `FilteringRulesAuthority` holds the originals), read in the caller's transaction.
 */
@Injectable()
export class ProfileFilteringRulesCopy extends FilteringRulesCopy {
  constructor() {
    super(`${PROFILE_SCHEMA}.ingestion_filtering_rules`);
  }
}
