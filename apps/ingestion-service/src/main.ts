import { IngestionModule } from '@guidepost/ingestion';
import { BlobModule } from '@guidepost/platform-blob';
import { ClickHouseModule } from '@guidepost/platform-clickhouse';
import { runServiceHost } from '@guidepost/platform-host';

/**
 * The ingestion service on its own (distributed shape): the job registry and the event pipeline, with
 * its ClickHouse and the blob store that holds staged imports and export files.
 */
runServiceHost('IngestionService', [BlobModule, ClickHouseModule, IngestionModule]);
