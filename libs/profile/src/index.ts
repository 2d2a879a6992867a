export { ProfileModule } from './profile.module';
export { PROFILE_DATABASE } from './data-access/profile-database';
