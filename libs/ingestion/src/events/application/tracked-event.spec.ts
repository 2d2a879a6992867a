import { parseTrackEvent, trackedEvent } from './tracked-event';

/** What the track endpoint answers for a body: `valid`, or the detail of its 400. */
const detail = (body: unknown): string => {
  try {
    trackedEvent('user-1', parseTrackEvent(body), new Date());
    return 'valid';
  } catch (error) {
    return (error as Error).message;
  }
};
const valid = { name: 'signup', timestamp: '2024-05-01T09:30:00Z' };
const TIMESTAMP_FORMS = 'must be an ISO 8601 date-time with seconds and Z or an offset (+HH:MM, -HH:MM)';

describe('a track request, as the endpoint reports failures', () => {
  it.each([
    ['no name', { timestamp: valid.timestamp }, 'name: is required'],
    ['an empty name', { ...valid, name: '' }, 'name: must not be empty'],
    ['a name that is not text', { ...valid, name: 7 }, 'name: must be string'],
    ['no timestamp', { name: 'signup' }, 'timestamp: is required'],
    ['a timestamp without a zone', { ...valid, timestamp: '2024-05-01T09:30:00' }, `timestamp: ${TIMESTAMP_FORMS}, got "2024-05-01T09:30:00"`],
    ['a date only', { ...valid, timestamp: '2024-05-01' }, `timestamp: ${TIMESTAMP_FORMS}, got "2024-05-01"`],
    ['an impossible date', { ...valid, timestamp: '2024-02-30T10:00:00Z' }, `timestamp: ${TIMESTAMP_FORMS}, got "2024-02-30T10:00:00Z"`],
    ['a leap second', { ...valid, timestamp: '2016-12-31T23:59:60Z' }, `timestamp: ${TIMESTAMP_FORMS}, got "2016-12-31T23:59:60Z"`],
    ['a number as timestamp', { ...valid, timestamp: 1714555800000 }, 'timestamp: must be string'],
    ['attributes that are a list', { ...valid, attributes: [1] }, 'attributes: must be object'],
    ['an _identity that is not an object', { ...valid, attributes: { _identity: 'me' } }, 'attributes._identity: must be object'],
    ['a group_id that is not text', { ...valid, group_id: 12 }, 'group_id: must be string'],
    ['an empty group_id', { ...valid, group_id: '' }, 'group_id: must not be empty'],
    ['a context.url that is not text', { ...valid, context: { url: 1 } }, 'context.url: must be string'],
    ['a context that is not an object', { ...valid, context: 'https://x' }, 'context: must be object'],
    ['a body that is a list', [valid], 'body: must be object'],
  ])('names the field for %s', (_case, body, expected) => {
    expect(detail(body)).toBe(expected);
  });

  it.each([
    ['UTC', '2024-05-01T09:30:00Z'],
    ['an offset and milliseconds', '2024-05-01T05:30:00.123-04:00'],
  ])('accepts a timestamp with %s, and free-form attributes and context', (_case, timestamp) => {
    expect(detail({ ...valid, timestamp, attributes: { a: [1], _identity: { id: 1 } }, group_id: 'g', context: { url: 'u', x: 1 } })).toBe(
      'valid',
    );
  });
});
