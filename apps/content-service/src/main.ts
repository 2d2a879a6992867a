import { ContentModule } from '@guidepost/content';
import { runServiceHost } from '@guidepost/platform-host';

/** The content service on its own (distributed shape): flows, pins, mobile, tags, filtering rules. */
runServiceHost('ContentService', [ContentModule]);
