import { CreateUserProfiles1795278090470 } from './migrations/0001-create-user-profiles';
import { CreateGroupProfiles1795278090471 } from './migrations/0002-create-group-profiles';
import { CreateIngestionFilteringRules1795278090472 } from './migrations/0003-create-ingestion-filtering-rules';

export { PROFILE_SCHEMA } from './profile-schema';

/** In order; a new migration is appended, never inserted. */
export const PROFILE_MIGRATIONS = [CreateUserProfiles1795278090470, CreateGroupProfiles1795278090471, CreateIngestionFilteringRules1795278090472];
