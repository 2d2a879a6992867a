import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type { AppConfig } from '@guidepost/platform-config';

/**
 * The process's one ClickHouse client, over HTTP to `GUIDEPOST_CLICKHOUSE_URL` (credentials in the
 * URL, database in its path): a ClickHouse server in the distributed shape, the engine process the
 * standalone host starts (`startEmbeddedClickHouse`) in the standalone shape. The same SQL runs on both.
 */
export function createClickHouseClient(config: AppConfig): ClickHouseClient {
  if (!config.clickhouseUrl)
    throw new Error('no event store: GUIDEPOST_CLICKHOUSE_URL is not set, and the host started no engine of its own');
  return createClient({ url: config.clickhouseUrl, application: 'guidepost' });
}
