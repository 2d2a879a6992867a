import { parseTrackEvent, trackedEvent } from '../application/tracked-event';
import { CLIENT_EVENT_ID_PREFIX, trackedEventId } from './client-event-id';

const valid = { name: 'signup', timestamp: '2024-05-01T09:30:00Z' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The stored event's id for a track body, or the detail of its 400. */
function eventIdOf(body: unknown): string {
  try {
    return trackedEvent('user-1', parseTrackEvent(body), new Date()).eventId;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

describe('trackedEventId', () => {
  it('derives the same id from the same event_id, every time: a retried event lands on the same row', () => {
    expect(trackedEventId('order-1234:placed')).toBe(trackedEventId('order-1234:placed'));
    expect(trackedEventId('order-1234:placed')).not.toBe(trackedEventId('order-1234:paid'));
    expect(trackedEventId('a')).toMatch(/^client:[A-Za-z0-9_-]{43}$/);
    expect(trackedEventId('é'.repeat(255))).toHaveLength(CLIENT_EVENT_ID_PREFIX.length + 43);
  });

  it('gives an event without event_id a random UUID, as before', () => {
    const [first, second] = [trackedEventId(undefined), trackedEventId(undefined)];
    expect(first).toMatch(UUID);
    expect(second).not.toBe(first);
  });
});

describe('event_id on a track request', () => {
  it('makes the stored event id deterministic; without it the id is random', () => {
    expect(eventIdOf({ ...valid, event_id: 'e-1' })).toBe(eventIdOf({ ...valid, event_id: 'e-1' }));
    expect(eventIdOf({ ...valid, event_id: 'e-1' })).toMatch(/^client:/);
    expect(eventIdOf(valid)).toMatch(UUID);
    expect(eventIdOf(valid)).not.toBe(eventIdOf(valid));
  });

  it.each([
    ['empty', '', 'event_id: must not be empty'],
    ['over 255 characters', 'e'.repeat(256), 'event_id: must NOT have more than 255 characters'],
    ['not text', 42, 'event_id: must be string'],
    ['holding NUL', 'a\u0000b', 'event_id: holds text that'],
    ['holding a lone surrogate', 'a\ud800b', 'event_id: holds text that'],
  ])('is refused with a 400 naming it when %s', (_label, eventId, detail) => {
    expect(eventIdOf({ ...valid, event_id: eventId })).toContain(`refused: ${detail}`);
  });

  it('takes 255 characters', () => {
    expect(eventIdOf({ ...valid, event_id: '€'.repeat(255) })).toMatch(/^client:/);
  });
});
