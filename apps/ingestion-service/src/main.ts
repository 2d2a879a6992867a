import { IngestionModule } from '@guidepost/ingestion';
import { runServiceHost } from '@guidepost/platform-host';

/** The ingestion service on its own (distributed shape): the job registry and, later, the event pipeline. */
runServiceHost('IngestionService', [IngestionModule]);
