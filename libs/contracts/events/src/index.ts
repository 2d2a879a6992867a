export { deadLetterTopicOf, defineTopic, type BusMessage, type PayloadOf, type Topic } from './topic';
export { ALL_TOPICS } from './all-topics';
export {
  emitJobEvent,
  type JobEventDraft,
  JobEventName,
  type JobEventPayload,
  JobEventRecorded,
  type JobRef,
  type OutboxEmitter,
} from './job-events';
export { SegmentMembershipExportRequested, SegmentUserIdsSubmitted } from './segment-events';
export { MailRequested } from './mail-events';
export { IngestionFilteringRulesChanged, NO_FILTERING, isKeptByFilteringRules, type IngestionFilteringRules } from './content-events';
export { EventsAccepted, RecordedEventSchema, type RecordedEvent } from './end-user-events';
export {
  EventExportRequested,
  AnalyticsExportRequested,
  ImportKind,
  ImportStaged,
  ProfileRowSchema,
  ProfileRowsImported,
  type ProfileRow,
} from './ingestion-events';
