export { defineTopic, type BusMessage, type PayloadOf, type Topic } from './topic';
export { JobEventName, JobEventRecorded } from './job-events';
export { SegmentMembershipExportRequested, SegmentUserIdsSubmitted } from './segment-events';
export { MailRequested } from './mail-events';
export { IngestionFilteringRulesChanged } from './content-events';
