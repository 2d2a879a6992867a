import { eventStoreCases } from './clickhouse-event-store.spec-cases';
import { chdbClickHouse } from './clickhouse-targets.spec-cases';

describe('ClickHouseEventStore, the chdb engine behind its HTTP front', () => {
  eventStoreCases(() => chdbClickHouse('guidepost-event-store-'));
});
