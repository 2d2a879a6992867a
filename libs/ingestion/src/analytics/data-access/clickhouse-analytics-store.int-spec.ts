import { analyticsStoreCases } from './clickhouse-analytics-store.spec-cases';
import { serverClickHouse } from '../../events/data-access/clickhouse-targets.spec-cases';

describe('ClickHouseAnalyticsStore over HTTP (GUIDEPOST_CLICKHOUSE_URL)', () => {
  analyticsStoreCases(() => serverClickHouse());
});
