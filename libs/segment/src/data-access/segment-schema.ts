/** The PostgreSQL schema this service owns; also the name of its data source and unit of work. */
export const SEGMENT_SCHEMA = 'segment';
