import { analyticsStoreCases } from './clickhouse-analytics-store.spec-cases';
import { chdbClickHouse } from '../../events/data-access/clickhouse-targets.spec-cases';

describe('ClickHouseAnalyticsStore, the chdb engine behind its HTTP front', () => {
  analyticsStoreCases(() => chdbClickHouse('guidepost-analytics-'));
});
