import { HttpJobRegistryClient, JobRegistryClient } from '@guidepost/contracts-http';
import { globalProviders, runServiceHost } from '@guidepost/platform-host';
import { PROFILE_DATABASE, ProfileModule } from '@guidepost/profile';

/** The profile service (distributed shape): user and group profiles; jobs are created at the ingestion service. */
runServiceHost({
  name: 'ProfileService',
  modules: (config) => [
    globalProviders([
      { provide: JobRegistryClient, useValue: new HttpJobRegistryClient(config.serviceUrls.ingestion, config.internalToken) },
    ]),
    ProfileModule,
  ],
  requires: ['GUIDEPOST_ADMIN_TOKEN', 'GUIDEPOST_INGESTION_SERVICE_URL'],
  storage: { database: PROFILE_DATABASE },
});
