export { IngestionModule } from './ingestion.module';
export { INGESTION_DATABASE, INGESTION_EVENT_STORE } from './data-access/ingestion-database';
// The analytics SQL, for the benchmark's baseline: the very statement the service runs, run straight in the store.
export { analyticsSpecOf } from './analytics/application/analytics-spec';
export { analyticsStatement } from './analytics/data-access/analytics-sql';
// How exports render their records in the store, for the benchmark's other baseline: the same file made by one SELECT.
export { CSV_RECORD, JSON_LINE, READ_SETTINGS, zoneParams } from './events/data-access/event-sql';
