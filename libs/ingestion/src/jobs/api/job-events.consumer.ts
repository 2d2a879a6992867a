import { Injectable, type OnModuleInit } from '@nestjs/common';
import { JobEventRecorded } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { JobRegistry } from '../application/job-registry.service';

const GROUP = 'ingestion.job-registry';

/** Records the job events every service reports; a redelivered message is recorded once. */
@Injectable()
export class JobEventsConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
    private readonly registry: JobRegistry,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: JobEventRecorded,
      group: GROUP,
      handle: async (message) => {
        await this.unitOfWork.runOnce(GROUP, message.id, (tx) => this.registry.recordEvent(tx, message.id, message.payload));
      },
    });
  }
}
