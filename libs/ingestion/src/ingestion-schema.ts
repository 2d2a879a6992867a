/** The ingestion service's PostgreSQL schema, also the name of its data source and unit of work. */
export const INGESTION_SCHEMA = 'ingestion';
