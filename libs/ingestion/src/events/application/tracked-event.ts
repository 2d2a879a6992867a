import { Type } from '@sinclair/typebox';
import type { RecordedEvent } from '@guidepost/contracts-events';
import { measureStorable, textFieldProblem, type TrackEvent, TrackEventSchema } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { compileValidator } from '@guidepost/platform-http';
import { trackedEventId } from '../domain/client-event-id';
import { eventTimestampField } from './instant-field';

/**
 * A track request's body, checked against `TrackEventSchema` with the timestamp taken as any text,
 * which `trackedEvent` then reads (see `eventTimestampField`). Throws a 400 naming the field at fault.
 */
export const parseTrackEvent: (body: unknown) => TrackEvent = compileValidator(
  Type.Object({ ...TrackEventSchema.properties, timestamp: Type.String() }),
);

/**
 * The event a validated track request records. It gets its id here, at intake, and keeps it in the
 * outbox, so that a redelivered batch can never store it twice; the id derives from the client's
 * `event_id` when there is one (`trackedEventId`), so that a retried event is stored once too. The
 * timestamp is stored as the same instant in UTC with milliseconds. Whatever the outbox or the event
 * store could not hold as it is is refused here with a 400 naming the field (the user id, a path
 * parameter, is checked before): once acknowledged, an event must reach the store.
 */
export function trackedEvent(userId: string, input: TrackEvent, receivedAt: Date): RecordedEvent {
  const timestamp = eventTimestampField(input.timestamp);
  assertStorable(input);
  return {
    eventId: trackedEventId(input.event_id),
    userId,
    ...(input.group_id === undefined ? {} : { groupId: input.group_id }),
    name: input.name,
    timestamp,
    attributes: input.attributes ?? {},
    ...(input.context?.url === undefined ? {} : { contextUrl: input.context.url }),
    receivedAt: receivedAt.toISOString(),
  };
}

/** The same checks as an imported event's (`measureStorable`, `textFieldProblem`), answered as a 400. */
function assertStorable(input: TrackEvent): void {
  const attributes = measureStorable(input.attributes ?? {}, 'attributes.');
  const problem =
    textFieldProblem('name', input.name) ??
    textFieldProblem('group_id', input.group_id) ??
    textFieldProblem('context.url', input.context?.url) ??
    textFieldProblem('event_id', input.event_id) ??
    (typeof attributes === 'number' ? undefined : attributes);
  if (problem) throw new DomainError('invalid_request', `${problem.field}: ${problem.reason}`);
}
