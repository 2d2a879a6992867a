import { CONTENT_DATABASE, ContentModule } from '@guidepost/content';
import { runServiceHost } from '@guidepost/platform-host';

/** The content service (distributed shape): flows, pins, mobile, tags, filtering rules. */
runServiceHost({
  name: 'ContentService',
  modules: () => [ContentModule],
  requires: ['GUIDEPOST_ADMIN_TOKEN'],
  storage: { database: CONTENT_DATABASE },
});
