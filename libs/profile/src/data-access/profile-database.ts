import { CreateUserProfiles1795278090470 } from './migrations/0001-create-user-profiles';
import { UserProfileEntity } from './user-profile.entity';

/** The profile service's PostgreSQL schema, also the name of its data source and unit of work. */
export const PROFILE_SCHEMA = 'profile';

export const PROFILE_ENTITIES = [UserProfileEntity];

/** In order; a new migration is appended, never inserted. */
export const PROFILE_MIGRATIONS = [CreateUserProfiles1795278090470];
