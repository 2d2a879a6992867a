import { createHash, randomUUID } from 'node:crypto';

/** What every event id derived from a client's `event_id` starts with, so none can equal a random or an imported one. */
export const CLIENT_EVENT_ID_PREFIX = 'client:';

/**
 * The id of a tracked event: derived from the client's `event_id` when it gave one, so that the event
 * sent again (a retry after a timeout) gets the same id and lands on the same row of the event store,
 * whose sort key is (account, user, timestamp, event id) and which keeps one row per key; a random UUID
 * otherwise. The account and the user are in that key already, so the id is a digest of `event_id`
 * alone: `client:` and the base64url SHA-256 of its UTF-8 bytes (50 characters, however long `event_id` is).
 * The `event_id` has been checked before (1 to 255 characters, no NUL or lone surrogate).
 */
export function trackedEventId(clientEventId: string | undefined): string {
  if (clientEventId === undefined) return randomUUID();
  return `${CLIENT_EVENT_ID_PREFIX}${createHash('sha256').update(clientEventId, 'utf8').digest('base64url')}`;
}
