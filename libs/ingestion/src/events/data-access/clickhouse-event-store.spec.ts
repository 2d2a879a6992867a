import { eventStoreCases } from './clickhouse-event-store.spec-cases';
import { inProcessClickHouse } from './clickhouse-targets.spec-cases';

describe('ClickHouseEventStore, engine in process (chdb)', () => {
  eventStoreCases(() => inProcessClickHouse('guidepost-event-store-'));
});
