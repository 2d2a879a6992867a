/** The gateway's PostgreSQL schema, also the name of its TypeORM data source. */
export const GATEWAY_SCHEMA = 'gateway';
