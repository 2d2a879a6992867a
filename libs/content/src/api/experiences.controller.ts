import { Controller } from '@nestjs/common';
import type { Experience } from '@guidepost/contracts-http';
import { ExperienceCatalog } from '../application/experience-catalog.service';
import { PublishableRecordsController } from './publishable-records.controller';

/** `/pins`, `/pins/{pin_id}`, `/pins/{pin_id}/publish`, `/pins/{pin_id}/unpublish`. */
@Controller('v2/accounts/:account_id/pins')
export class PinsController extends PublishableRecordsController<Experience> {
  constructor(experiences: ExperienceCatalog) {
    super(experiences.of('pin'));
  }
}

/** `/mobile`, `/mobile/{mobile_id}`, `/mobile/{mobile_id}/publish`, `/mobile/{mobile_id}/unpublish`. */
@Controller('v2/accounts/:account_id/mobile')
export class MobileController extends PublishableRecordsController<Experience> {
  constructor(experiences: ExperienceCatalog) {
    super(experiences.of('mobile'));
  }
}
