import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AnalyticsExportRequested } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { INGESTION_SCHEMA } from '../../ingestion-schema';
import { type AnalyticsExportReport, analyticsExportGivenUp, AnalyticsExports } from '../application/analytics-exports.service';

export const ANALYTICS_EXPORT_GROUP = 'ingestion.analytics-export';

/**
 * Writes requested analytics exports as the event export consumer writes event exports: the file
 * first, outside any transaction, then the outcome in the run-once transaction; a request given up
 * on for good (dead-lettered) reports its job `Failed`.
 */
@Injectable()
export class AnalyticsExportConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly exports: AnalyticsExports,
    @InjectUnitOfWork(INGESTION_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: AnalyticsExportRequested,
      group: ANALYTICS_EXPORT_GROUP,
      handle: async (message) => {
        await this.exports.start(message.payload);
        await this.report(message.id, await this.exports.write(message.payload));
      },
      onGiveUp: (message, reason) => this.report(message.id, analyticsExportGivenUp(message.payload, reason)),
    });
  }

  private async report(messageId: string, report: AnalyticsExportReport): Promise<void> {
    await this.unitOfWork.runOnce(ANALYTICS_EXPORT_GROUP, messageId, (tx) => Promise.resolve(report(tx)));
  }
}
