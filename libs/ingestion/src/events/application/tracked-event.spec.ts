import { ID_MAX_LENGTH } from '@guidepost/contracts-http';
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
    [
      'a timestamp without a zone',
      { ...valid, timestamp: '2024-05-01T09:30:00' },
      `timestamp: ${TIMESTAMP_FORMS}, got "2024-05-01T09:30:00"`,
    ],
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
    [
      'a group_id over the id length limit',
      { ...valid, group_id: 'g'.repeat(ID_MAX_LENGTH + 1) },
      `group_id: must NOT have more than ${ID_MAX_LENGTH} characters`,
    ],
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

describe('what the event store could not hold is refused before the answer', () => {
  const STORABLE_YEARS = 'must be in the years 1900 to 2299, the range the event store holds';

  it.each([
    ['before 1900', '1899-12-31T23:59:59.999Z'],
    ['before 1900 in its own offset', '1900-01-01T00:30:00+01:00'],
    ['in 2300', '2300-01-01T00:00:00Z'],
    ['in year 0000', '0000-06-01T00:00:00Z'],
    ['in year 9999', '9999-12-31T23:59:59Z'],
  ])('a timestamp %s, naming timestamp', (_case, timestamp) => {
    expect(detail({ ...valid, timestamp })).toBe(`timestamp: ${STORABLE_YEARS}, got ${JSON.stringify(timestamp)}`);
  });

  it.each(['1900-01-01T00:00:00Z', '2299-12-31T23:59:59.999Z', '2300-01-01T00:59:59+01:00'])(
    'takes %s, at the edges of the range',
    (timestamp) => {
      expect(detail({ ...valid, timestamp })).toBe('valid');
    },
  );

  it.each([
    ['a name with NUL', { ...valid, name: 'sign\u0000up' }, /^name: holds text that contains a NUL character/],
    ['a group_id with a lone surrogate', { ...valid, group_id: 'g\ud800' }, /^group_id: holds text that contains a lone UTF-16 surrogate/],
    ['a context.url with NUL', { ...valid, context: { url: 'https://x/\u0000' } }, /^context\.url: holds text that contains a NUL/],
    [
      'an attribute value with NUL',
      { ...valid, attributes: { plan: ['pro', 'a\u0000'] } },
      /^attributes\.plan: holds text that contains a NUL/,
    ],
    [
      'an attribute name with a lone surrogate',
      { ...valid, attributes: { 'k\udc00': 1 } },
      /^attributes\.k\udc00: has a name that contains a lone/,
    ],
    [
      'an attribute number JSON cannot write',
      { ...valid, attributes: { big: Infinity } },
      /^attributes\.big: holds a number too large to store/,
    ],
  ])('%s, naming the field', (_case, body, expected) => {
    expect(detail(body)).toMatch(expected);
  });
});
