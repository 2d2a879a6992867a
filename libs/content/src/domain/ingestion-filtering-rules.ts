import type { IngestionFilteringRulesChanged, PayloadOf } from '@guidepost/contracts-events';
import type { IngestionFilteringRules, IngestionFilteringRulesInput } from '@guidepost/contracts-http';
import { isoTimestamp } from './timestamp-forms';

export type FilteringMode = IngestionFilteringRules['mode'];

/** One account's rules. `updatedAt` is null only for the default of an account that never set any. */
export interface FilteringRulesRecord {
  readonly accountId: string;
  readonly mode: FilteringMode;
  readonly eventNames: string[];
  readonly userProperties: string[];
  readonly groupProperties: string[];
  readonly updatedAt: Date | null;
}

export interface StoredFilteringRules extends FilteringRulesRecord {
  readonly updatedAt: Date;
}

/** Deny mode with empty lists drops nothing: an account that never set rules keeps everything. */
export function defaultFilteringRules(accountId: string): FilteringRulesRecord {
  return { accountId, mode: 'deny', eventNames: [], userProperties: [], groupProperties: [], updatedAt: null };
}

/** The rules an input replaces the old ones with: omitted lists are empty, repeated names kept once. */
export function filteringRulesOf(accountId: string, input: IngestionFilteringRulesInput, now: Date): StoredFilteringRules {
  const distinct = (names: readonly string[] = []) => [...new Set(names)];
  return {
    accountId,
    mode: input.mode,
    eventNames: distinct(input.event_names),
    userProperties: distinct(input.user_properties),
    groupProperties: distinct(input.group_properties),
    updatedAt: now,
  };
}

export function toPublicFilteringRules(rules: FilteringRulesRecord): IngestionFilteringRules {
  return {
    mode: rules.mode,
    event_names: rules.eventNames,
    user_properties: rules.userProperties,
    group_properties: rules.groupProperties,
    updated_at: rules.updatedAt ? isoTimestamp(rules.updatedAt) : null,
  };
}

/** The announcement that lets other services keep their own copy of the rules. */
export function filteringRulesChange(rules: StoredFilteringRules): PayloadOf<typeof IngestionFilteringRulesChanged> {
  return {
    accountId: rules.accountId,
    mode: rules.mode,
    eventNames: rules.eventNames,
    userProperties: rules.userProperties,
    groupProperties: rules.groupProperties,
    updatedAt: isoTimestamp(rules.updatedAt),
  };
}
