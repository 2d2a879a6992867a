export { ProfileModule } from './profile.module';
export { PROFILE_MIGRATIONS, PROFILE_SCHEMA } from './data-access/profile-database';
