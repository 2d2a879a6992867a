import { Injectable, type OnModuleInit } from '@nestjs/common';
import { EventExportRequested } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { EventExportService, type ExportReport, exportGivenUp } from '../application/event-export.service';

export const EVENT_EXPORT_GROUP = 'ingestion.event-export';

/**
 * Writes requested event exports. The file is written first, outside any transaction; the outcome is
 * then reported in the run-once transaction, so a redelivered request reports nothing new. A request
 * given up on for good (dead-lettered) reports its job `Failed`, so no export waits for ever.
 */
@Injectable()
export class EventExportConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly exports: EventExportService,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: EventExportRequested,
      group: EVENT_EXPORT_GROUP,
      handle: async (message) => this.report(message.id, await this.exports.write(message.payload)),
      onGiveUp: (message, reason) => this.report(message.id, exportGivenUp(message.payload, reason)),
    });
  }

  private async report(messageId: string, report: ExportReport): Promise<void> {
    await this.unitOfWork.runOnce(EVENT_EXPORT_GROUP, messageId, (tx) => Promise.resolve(report(tx)));
  }
}
