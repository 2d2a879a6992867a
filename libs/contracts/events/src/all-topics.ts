import { IngestionFilteringRulesChanged } from './content-events';
import { EventsAccepted } from './end-user-events';
import { AnalyticsExportRequested, EventExportRequested, ImportStaged, ProfileRowsImported } from './ingestion-events';
import { JobEventRecorded } from './job-events';
import { MailRequested } from './mail-events';
import { SegmentMembershipExportRequested, SegmentUserIdsSubmitted } from './segment-events';
import type { Topic } from './topic';

/** Every topic of the contracts, for the infrastructure that must know them all (the Kafka adapter creates them). */
export const ALL_TOPICS: readonly Topic[] = [
  JobEventRecorded,
  SegmentUserIdsSubmitted,
  SegmentMembershipExportRequested,
  MailRequested,
  IngestionFilteringRulesChanged,
  EventsAccepted,
  ImportStaged,
  ProfileRowsImported,
  EventExportRequested,
  AnalyticsExportRequested,
];
