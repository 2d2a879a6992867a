import { Controller } from '@nestjs/common';
import type { Flow } from '@guidepost/contracts-http';
import { FlowCatalog } from '../application/flow-catalog.service';
import { PublishableRecordsController } from './publishable-records.controller';

/** `/flows`, `/flows/{flow_id}`, `/flows/{flow_id}/publish`, `/flows/{flow_id}/unpublish`. */
@Controller('v2/accounts/:account_id/flows')
export class FlowsController extends PublishableRecordsController<Flow> {
  constructor(flows: FlowCatalog) {
    super(flows);
  }
}
