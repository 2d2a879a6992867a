import { JobEventEntity } from '../jobs/data-access/job-event.entity';
import { JobEntity } from '../jobs/data-access/job.entity';
import { CreateJobRegistry1795278090469 } from './migrations/0001-create-job-registry';

/** The ingestion service's PostgreSQL schema, also the name of its data source and unit of work. */
export const INGESTION_SCHEMA = 'ingestion';

export const INGESTION_ENTITIES = [JobEntity, JobEventEntity];

/** In order; a new migration is appended, never inserted. */
export const INGESTION_MIGRATIONS = [CreateJobRegistry1795278090469];
