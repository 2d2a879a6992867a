export { IngestionModule } from './ingestion.module';
export { INGESTION_DATABASE, INGESTION_EVENT_STORE } from './data-access/ingestion-database';
