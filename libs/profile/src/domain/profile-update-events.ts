import type { RecordedEvent } from '@guidepost/contracts-events';
import type { ProfileProperties } from './profile-properties';

/** The internal event every user-profile write records (docs/api-contract.md#events). */
export const PROFILE_UPDATE_EVENT = 'svc:profile_update';

/** Events per `EventsAccepted` message: large enough for few messages, small enough for any bus. */
export const EVENTS_PER_MESSAGE = 5_000;

/** The `svc:profile_update` of one write: its attributes are the properties written (after filtering). */
export function profileUpdateEvent(eventId: string, userId: string, written: ProfileProperties, now: Date): RecordedEvent {
  const at = now.toISOString();
  return { eventId, userId, name: PROFILE_UPDATE_EVENT, timestamp: at, attributes: written, receivedAt: at };
}

/** Consecutive slices of at most `size` items, in order. */
export function batchesOf<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}
