import { eventStoreCases } from './clickhouse-event-store.spec-cases';
import { serverClickHouse } from './clickhouse-targets.spec-cases';

describe('ClickHouseEventStore over HTTP (GUIDEPOST_CLICKHOUSE_URL)', () => {
  eventStoreCases(() => serverClickHouse());
});
