export { ClickHouseModule, type ClickHouseServiceOptions } from './clickhouse.module';
export { createClickHouseClient } from './clickhouse-client';
export { type ClickHouseMigration } from './migrations/clickhouse-migration';
export { migrateClickHouse } from './migrations/migrate-clickhouse';
