import { Type, type Static } from '@sinclair/typebox';
import { defineTopic } from './topic';

/**
 * One end-user event on its way to the event store. `eventId` is deterministic wherever the producer
 * can make it so (an import row: job id and line; a tracked event: the id given at intake, kept in the
 * producer's outbox), so that a replayed or retried batch never duplicates an event in what clients read.
 */
export const RecordedEventSchema = Type.Object({
  eventId: Type.String({ minLength: 1 }),
  /** Empty when the event belongs to a group only (an import row with just `group_id`). */
  userId: Type.String(),
  groupId: Type.Optional(Type.String({ minLength: 1 })),
  name: Type.String({ minLength: 1 }),
  /** The instant, in UTC with milliseconds (`2024-05-01T09:30:00.000Z`). */
  timestamp: Type.String({ format: 'date-time' }),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  contextUrl: Type.Optional(Type.String()),
  /** When the service accepted the event; exports read the store as of their own request time. */
  receivedAt: Type.String({ format: 'date-time' }),
});
export type RecordedEvent = Static<typeof RecordedEventSchema>;

/**
 * Events accepted by an intake (track, event import, profile updates recording `svc:profile_update`),
 * already filtered by the account's ingestion filtering rules. Consumed by the event sink, which
 * writes them to the event store in large batches. Keyed by batch, so batches spread over partitions:
 * events carry their own timestamps, so no order between batches is needed.
 */
export const EventsAccepted = defineTopic(
  'guidepost.events.events-accepted.v1',
  'batch id',
  Type.Object({
    accountId: Type.String({ minLength: 1 }),
    events: Type.Array(RecordedEventSchema, { minItems: 1 }),
  }),
);
