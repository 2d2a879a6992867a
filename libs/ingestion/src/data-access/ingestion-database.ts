import { JobEventEntity } from '../jobs/data-access/job-event.entity';
import { JobEntity } from '../jobs/data-access/job.entity';
import { CreateJobRegistry1795278090469 } from './migrations/0001-create-job-registry';
import { CreateFilteringRules1795364490469 } from './migrations/0002-create-filtering-rules';
import { CreateImportFailures1795450890469 } from './migrations/0003-create-import-failures';

/** The ingestion service's PostgreSQL schema, also the name of its data source and unit of work. */
export const INGESTION_SCHEMA = 'ingestion';

export const INGESTION_ENTITIES = [JobEntity, JobEventEntity];

/** In order; a new migration is appended, never inserted. */
export const INGESTION_MIGRATIONS = [
  CreateJobRegistry1795278090469,
  CreateFilteringRules1795364490469,
  CreateImportFailures1795450890469,
];
