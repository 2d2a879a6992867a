import type { ClickHouseServiceOptions } from '@guidepost/platform-clickhouse';
import type { ServiceDatabaseOptions } from '@guidepost/platform-database';
import { EVENT_STORE_MIGRATIONS } from '../events/data-access/clickhouse-migrations';
import { INGESTION_SCHEMA } from '../ingestion-schema';
import { JobEventEntity } from '../jobs/data-access/job-event.entity';
import { JobEntity } from '../jobs/data-access/job.entity';
import { CreateJobRegistry1795278090469 } from './migrations/0001-create-job-registry';
import { CreateFilteringRules1795364490469 } from './migrations/0002-create-filtering-rules';
import { CreateImportFailures1795450890469 } from './migrations/0003-create-import-failures';
import { CreateIngestionDeadLetters1795537290473 } from './migrations/0004-create-dead-letters';
import { IndexJobsInProgress1795540000001 } from './migrations/0005-index-jobs-in-progress';
import { IndexIngestionMessagingRetention1795610000000 } from './migrations/0006-index-messaging-retention';

/**
 * The ingestion service's PostgreSQL schema, its entities and its migrations (in order; append only).
 * It gathers what the modules own (the job registry's entities, the event store's migrations) for the
 * service module and the hosts; nothing inside a module imports it back, so the floors run one way.
 */
export const INGESTION_DATABASE: ServiceDatabaseOptions = {
  schema: INGESTION_SCHEMA,
  entities: [JobEntity, JobEventEntity],
  migrations: [
    CreateJobRegistry1795278090469,
    CreateFilteringRules1795364490469,
    CreateImportFailures1795450890469,
    CreateIngestionDeadLetters1795537290473,
    IndexJobsInProgress1795540000001,
    IndexIngestionMessagingRetention1795610000000,
  ],
};

/** The event store's ClickHouse migrations, recorded under the ingestion service. */
export const INGESTION_EVENT_STORE: ClickHouseServiceOptions = { service: INGESTION_SCHEMA, migrations: EVENT_STORE_MIGRATIONS };
