import { Module } from '@nestjs/common';
import { ServiceDatabaseModule } from '@guidepost/platform-database';
import { SegmentMembershipExportConsumer } from './api/segment-membership-export.consumer';
import { SegmentMembershipController } from './api/segment-membership.controller';
import { SegmentMembershipConsumer } from './api/segment-membership.consumer';
import { SegmentsController } from './api/segments.controller';
import { MembershipChangeService } from './application/membership-change.service';
import { MembershipExportService } from './application/membership-export.service';
import { SegmentsService } from './application/segments.service';
import { MembershipChangeRepository } from './data-access/membership-change.repository';
import { SEGMENT_DATABASE } from './data-access/segment-database';
import { SegmentMemberRepository } from './data-access/segment-member.repository';
import { SegmentRepository } from './data-access/segment.repository';

/**
 * The segment service: segments, their membership (add, remove, export) and the consumers that apply
 * membership changes and write exports. The host provides, globally: `AppConfig`, `MessageBus`,
 * `JobRegistryClient`, `UserProfileDirectory` and `BlobStore`.
 */
@Module({
  imports: [ServiceDatabaseModule.forService(SEGMENT_DATABASE)],
  controllers: [SegmentsController, SegmentMembershipController],
  providers: [
    SegmentRepository,
    SegmentMemberRepository,
    MembershipChangeRepository,
    SegmentsService,
    MembershipChangeService,
    MembershipExportService,
    SegmentMembershipConsumer,
    SegmentMembershipExportConsumer,
  ],
})
export class SegmentModule {}
