import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { RecordedEvent } from '@guidepost/contracts-events';
import { type TrackEvent, TrackEventSchema } from '@guidepost/contracts-http';
import { compileValidator } from '@guidepost/platform-http';
import { instantField } from './instant-field';

/**
 * A track request's body, checked against `TrackEventSchema` with the timestamp taken as any text,
 * which `trackedEvent` then reads (see `instantField`). Throws a 400 naming the field at fault.
 */
export const parseTrackEvent: (body: unknown) => TrackEvent = compileValidator(
  Type.Object({ ...TrackEventSchema.properties, timestamp: Type.String() }),
);

/**
 * The event a validated track request records. It gets its id here, at intake, and keeps it in the
 * outbox, so that a redelivered batch can never store it twice. The timestamp is stored as the same
 * instant in UTC with milliseconds.
 */
export function trackedEvent(userId: string, input: TrackEvent, receivedAt: Date): RecordedEvent {
  return {
    eventId: randomUUID(),
    userId,
    ...(input.group_id === undefined ? {} : { groupId: input.group_id }),
    name: input.name,
    timestamp: instantField('timestamp', input.timestamp, 'iso'),
    attributes: input.attributes ?? {},
    ...(input.context?.url === undefined ? {} : { contextUrl: input.context.url }),
    receivedAt: receivedAt.toISOString(),
  };
}
