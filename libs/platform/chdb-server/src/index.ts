export { type ChdbHttpServer, startChdbHttpServer } from './chdb-http-server';
export { type EmbeddedClickHouse, startEmbeddedClickHouse } from './embedded-clickhouse';
export { inIdleCpuGroup, type Outcome } from './idle-cpu-group';
