import type { IngestionFilteringRules } from '@guidepost/contracts-events';

/** The two kinds of profile this service keeps: the same free-form store, addressed by different ids. */
export type ProfileKind = 'user' | 'group';

/** Where an item entered: the label of the filtered-items counter (shared with the ingestion service). */
export type Intake = 'profile_update' | 'group_update' | 'import';

export interface ProfileKindTraits {
  /** How a missing profile is named in a 404 (`User 'u-1' was not found`). */
  readonly resource: string;
  /** The list of the filtering rules that applies to this kind's property names. */
  readonly rulesList: keyof Pick<IngestionFilteringRules, 'userProperties' | 'groupProperties'>;
  /** The `kind` label of items of this kind dropped by the rules. */
  readonly filteredKind: 'user_property' | 'group_property';
  /** The intake of a direct update through `PATCH .../profile`. */
  readonly updateIntake: Intake;
}

export const PROFILE_KINDS: Readonly<Record<ProfileKind, ProfileKindTraits>> = {
  user: { resource: 'User', rulesList: 'userProperties', filteredKind: 'user_property', updateIntake: 'profile_update' },
  group: { resource: 'Group', rulesList: 'groupProperties', filteredKind: 'group_property', updateIntake: 'group_update' },
};
