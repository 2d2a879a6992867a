import { HttpJobRegistryClient, HttpUserProfileDirectory, JobRegistryClient, UserProfileDirectory } from '@guidepost/contracts-http';
import { BlobModule } from '@guidepost/platform-blob';
import { globalProviders, runServiceHost } from '@guidepost/platform-host';
import { SEGMENT_DATABASE, SegmentModule } from '@guidepost/segment';

/**
 * The segment service (distributed shape): segments and membership; jobs are created at the ingestion
 * service, exported profiles read from the profile service, export files written to S3.
 */
runServiceHost({
  name: 'SegmentService',
  modules: (config) => [
    globalProviders([
      { provide: JobRegistryClient, useValue: new HttpJobRegistryClient(config.serviceUrls.ingestion, config.internalToken) },
      { provide: UserProfileDirectory, useValue: new HttpUserProfileDirectory(config.serviceUrls.profile, config.internalToken) },
    ]),
    BlobModule.forRoot(config),
    SegmentModule,
  ],
  requires: ['GUIDEPOST_ADMIN_TOKEN', 'GUIDEPOST_INGESTION_SERVICE_URL', 'GUIDEPOST_PROFILE_SERVICE_URL', 'GUIDEPOST_S3_ENDPOINT'],
  storage: { database: SEGMENT_DATABASE },
});
