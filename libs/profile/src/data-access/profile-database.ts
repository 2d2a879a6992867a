import type { ServiceDatabaseOptions } from '@guidepost/platform-database';
import { CreateUserProfiles1795278090470 } from './migrations/0001-create-user-profiles';
import { CreateGroupProfiles1795278090471 } from './migrations/0002-create-group-profiles';
import { CreateIngestionFilteringRules1795278090472 } from './migrations/0003-create-ingestion-filtering-rules';
import { CreateProfileDeadLetters1795537290473 } from './migrations/0004-create-dead-letters';
import { IndexProfileMessagingRetention1795610000000 } from './migrations/0005-index-messaging-retention';
import { PROFILE_SCHEMA } from './profile-schema';

/** The profile service's PostgreSQL schema and its migrations (in order; append only). Repositories use plain SQL. */
export const PROFILE_DATABASE: ServiceDatabaseOptions = {
  schema: PROFILE_SCHEMA,
  entities: [],
  migrations: [
    CreateUserProfiles1795278090470,
    CreateGroupProfiles1795278090471,
    CreateIngestionFilteringRules1795278090472,
    CreateProfileDeadLetters1795537290473,
    IndexProfileMessagingRetention1795610000000,
  ],
};
