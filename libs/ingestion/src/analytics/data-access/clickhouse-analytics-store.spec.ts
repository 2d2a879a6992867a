import { analyticsStoreCases } from './clickhouse-analytics-store.spec-cases';
import { inProcessClickHouse } from '../../events/data-access/clickhouse-targets.spec-cases';

describe('ClickHouseAnalyticsStore, engine in process (chdb)', () => {
  analyticsStoreCases(() => inProcessClickHouse('guidepost-analytics-'));
});
