import { Global, Module } from '@nestjs/common';
import { UserProfileDirectory } from '@guidepost/contracts-http';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { UserProfileDirectoryService } from './application/user-profile-directory.service';
import { PROFILE_ENTITIES, PROFILE_MIGRATIONS, PROFILE_SCHEMA } from './data-access/profile-database';
import { UserProfileRepository } from './data-access/user-profile.repository';

/**
 * The profile service: for now the user profile store and the `UserProfileDirectory` that other
 * services of the same process read profiles through. Global so those services need not import it.
 */
@Global()
@Module({
  imports: [
    ServiceDatabaseModule.forService({ schema: PROFILE_SCHEMA, entities: PROFILE_ENTITIES, migrations: PROFILE_MIGRATIONS }),
  ],
  providers: [UserProfileRepository, { provide: UserProfileDirectory, useClass: UserProfileDirectoryService }],
  exports: [UserProfileDirectory],
})
export class ProfileModule {}
