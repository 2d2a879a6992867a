import { Injectable, type OnModuleInit } from '@nestjs/common';
import { SegmentMembershipExportRequested } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { MembershipExportService } from '../application/membership-export.service';
import { SEGMENT_SCHEMA } from '../data-access/segment-schema';

export const MEMBERSHIP_EXPORT_GROUP = 'segment.membership-export';

/**
 * Writes requested membership exports. The export runs inside the run-once transaction: a redelivered
 * request whose export already finished is skipped before any work, not exported again. A request
 * given up on for good (dead-lettered) reports its job `Failed`, so no export waits for ever.
 */
@Injectable()
export class SegmentMembershipExportConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly exports: MembershipExportService,
    @InjectUnitOfWork(SEGMENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: SegmentMembershipExportRequested,
      group: MEMBERSHIP_EXPORT_GROUP,
      handle: async (message) => {
        await this.unitOfWork.runOnce(MEMBERSHIP_EXPORT_GROUP, message.id, (tx) => this.exports.run(tx, message.payload));
      },
      onGiveUp: async (message, reason) => {
        await this.unitOfWork.runOnce(MEMBERSHIP_EXPORT_GROUP, message.id, (tx) =>
          Promise.resolve(this.exports.giveUp(tx, message.payload, reason)),
        );
      },
    });
  }
}
