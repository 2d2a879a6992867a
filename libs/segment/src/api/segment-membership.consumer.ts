import { Injectable, type OnModuleInit } from '@nestjs/common';
import { SegmentUserIdsSubmitted } from '@guidepost/contracts-events';
import { MessageBus } from '@guidepost/platform-bus';
import { InjectUnitOfWork, UnitOfWork } from '@guidepost/platform-database';
import { MembershipChangeService } from '../application/membership-change.service';
import { SEGMENT_SCHEMA } from '../data-access/segment-schema';

export const MEMBERSHIP_GROUP = 'segment.membership';

/** Applies staged chunks of add and remove requests, each once whatever the redeliveries. */
@Injectable()
export class SegmentMembershipConsumer implements OnModuleInit {
  constructor(
    private readonly bus: MessageBus,
    private readonly changes: MembershipChangeService,
    @InjectUnitOfWork(SEGMENT_SCHEMA) private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe({
      topic: SegmentUserIdsSubmitted,
      group: MEMBERSHIP_GROUP,
      handle: async (message) => {
        await this.unitOfWork.runOnce(MEMBERSHIP_GROUP, message.id, (tx) => this.changes.applyChunk(tx, message.payload));
      },
    });
  }
}
