export { IngestionModule } from './ingestion.module';
export { INGESTION_MIGRATIONS, INGESTION_SCHEMA } from './data-access/ingestion-database';
