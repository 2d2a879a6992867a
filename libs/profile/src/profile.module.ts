import { Global, Module } from '@nestjs/common';
import { UserProfileDirectory } from '@guidepost/contracts-http';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { FilteringRulesCopyConsumer } from './api/filtering-rules-copy.consumer';
import { GroupController } from './api/group.controller';
import { InternalUserProfilesController } from './api/internal-user-profiles.controller';
import { ProfileImportConsumer } from './api/profile-import.consumer';
import { UserProfileController } from './api/user-profile.controller';
import { GroupAssociationService } from './application/group-association.service';
import { ProfileDeletionService } from './application/profile-deletion.service';
import { ProfileImportsService } from './application/profile-imports.service';
import { ProfilesService } from './application/profiles.service';
import { IntakeFilter } from './application/intake-filter';
import { ProfileUpdateRecorder } from './application/profile-update-recorder';
import { UserProfileDirectoryService } from './application/user-profile-directory.service';
import { ProfileFilteringRulesCopy } from './data-access/profile-filtering-rules-copy.repository';
import { PROFILE_DATABASE } from './data-access/profile-database';
import { ProfileRepository } from './data-access/profile.repository';

/**
 * The profile service: user and group profiles (read, update, delete, group association), the merge
 * of imported rows, its copy of the ingestion filtering rules, and the `UserProfileDirectory` other
 * services of the same process read profiles through (global, so they need not import this module).
 * The host provides, globally: `AppConfig`, `MessageBus`, `MetricsRegistry` and `JobRegistryClient`.
 */
@Global()
@Module({
  imports: [ServiceDatabaseModule.forService(PROFILE_DATABASE)],
  controllers: [UserProfileController, GroupController, InternalUserProfilesController],
  providers: [
    ProfileRepository,
    ProfileFilteringRulesCopy,
    IntakeFilter,
    ProfileUpdateRecorder,
    ProfilesService,
    ProfileDeletionService,
    GroupAssociationService,
    ProfileImportsService,
    FilteringRulesCopyConsumer,
    ProfileImportConsumer,
    { provide: UserProfileDirectory, useClass: UserProfileDirectoryService },
  ],
  exports: [UserProfileDirectory],
})
export class ProfileModule {}
