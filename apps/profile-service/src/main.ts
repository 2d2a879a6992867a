import { ProfileModule } from '@guidepost/profile';
import { runServiceHost } from '@guidepost/platform-host';

/** The profile service on its own (distributed shape): user and group profiles. */
runServiceHost('ProfileService', [ProfileModule]);
