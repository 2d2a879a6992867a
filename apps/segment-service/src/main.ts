import { BlobModule } from '@guidepost/platform-blob';
import { MailModule } from '@guidepost/platform-mail';
import { runServiceHost } from '@guidepost/platform-host';
import { SegmentModule } from '@guidepost/segment';

/**
 * The segment service on its own (distributed shape). It needs the job registry and the profile
 * directory of other services through their internal HTTP clients, which arrive with the
 * distributed suite (issue 4); until then Nest refuses to start it, naming the missing port.
 */
runServiceHost('SegmentService', [BlobModule, MailModule, SegmentModule]);
