import { INGESTION_DATABASE, INGESTION_EVENT_STORE, IngestionModule } from '@guidepost/ingestion';
import { BlobModule } from '@guidepost/platform-blob';
import { ClickHouseModule } from '@guidepost/platform-clickhouse';
import { runServiceHost } from '@guidepost/platform-host';
import { MailModule } from '@guidepost/platform-mail';

/**
 * The ingestion service (distributed shape): the job registry, track and history, imports and exports,
 * with ClickHouse for events, S3 for staged uploads and export files, and the mail sender.
 */
runServiceHost({
  name: 'IngestionService',
  modules: (config) => [BlobModule.forRoot(config), MailModule.forRoot(config), ClickHouseModule, IngestionModule],
  requires: ['GUIDEPOST_ADMIN_TOKEN', 'GUIDEPOST_CLICKHOUSE_URL', 'GUIDEPOST_S3_ENDPOINT'],
  storage: { database: INGESTION_DATABASE, eventStore: INGESTION_EVENT_STORE },
});
