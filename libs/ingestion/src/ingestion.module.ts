import { Global, Module } from '@nestjs/common';
import { JobRegistryClient } from '@guidepost/contracts-http';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { INGESTION_ENTITIES, INGESTION_MIGRATIONS, INGESTION_SCHEMA } from './data-access/ingestion-database';
import { JobEventsConsumer } from './jobs/api/job-events.consumer';
import { JobsController } from './jobs/api/jobs.controller';
import { JobRegistry } from './jobs/application/job-registry.service';
import { JobRepository } from './jobs/data-access/job.repository';

/**
 * The ingestion service: for now its job registry. Global, so that the other services of the same
 * process create jobs through `JobRegistryClient` in process.
 */
@Global()
@Module({
  imports: [
    ServiceDatabaseModule.forService({
      schema: INGESTION_SCHEMA,
      entities: INGESTION_ENTITIES,
      migrations: INGESTION_MIGRATIONS,
    }),
  ],
  controllers: [JobsController],
  providers: [JobRepository, JobRegistry, JobEventsConsumer, { provide: JobRegistryClient, useExisting: JobRegistry }],
  exports: [JobRegistryClient],
})
export class IngestionModule {}
