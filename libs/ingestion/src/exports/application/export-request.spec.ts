import {
  EXPORT_MAX_EMAILS,
  EXPORT_MAX_EVENTS,
  EXPORT_MAX_OFFSET,
  type EventExportRequest,
  TIME_ZONE_FORMS,
} from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { parseExportRequest, resolveExportRequest } from './export-request';

const resolve = (request: Partial<EventExportRequest>) =>
  resolveExportRequest({ format: 'json', conditions: [], start_time: '2024-03-01T00:00:00Z', ...request });

describe('resolveExportRequest', () => {
  it('resolves a minimal request: UTC start, no end, UTC, the largest limit, no offset, no mail', () => {
    expect(resolve({})).toEqual({
      format: 'json',
      conditions: [],
      startTime: '2024-03-01T00:00:00.000Z',
      timeZoneMinutes: 0,
      limit: EXPORT_MAX_EVENTS,
      offset: 0,
      emails: [],
    });
  });

  it('takes instants with offsets or as milliseconds, the time zone, the page and each address once', () => {
    const resolved = resolve({
      format: 'csv',
      conditions: [['name', '==', 'signup']],
      start_time: Date.parse('2024-03-02T00:00:00Z'),
      end_time: '2024-03-04T09:00:00-02:00',
      time_zone: '-04:00',
      limit: 10,
      offset: 20,
      email: ['a@example.com', 'b@example.com', 'a@example.com'],
    });
    expect(resolved).toMatchObject({
      format: 'csv',
      conditions: [['name', '==', 'signup']],
      startTime: '2024-03-02T00:00:00.000Z',
      endTime: '2024-03-04T11:00:00.000Z',
      timeZoneMinutes: -240,
      limit: 10,
      offset: 20,
      emails: ['a@example.com', 'b@example.com'],
    });
    expect(resolve({ email: 'a@example.com', time_zone: 330 })).toMatchObject({ emails: ['a@example.com'], timeZoneMinutes: 330 });
  });

  it('moves a range reaching outside the years the event store holds to their edges (the same events)', () => {
    expect(resolve({ start_time: '0000-06-01T00:00:00Z', end_time: '9999-01-01T00:00:00Z' })).toMatchObject({
      startTime: '1900-01-01T00:00:00.000Z',
      endTime: '2300-01-01T00:00:00.000Z',
    });
    expect(resolve({ start_time: '1800-01-01T00:00:00Z', end_time: '1850-01-01T00:00:00Z' })).toMatchObject({
      startTime: '1900-01-01T00:00:00.000Z',
      endTime: '1900-01-01T00:00:00.000Z',
    });
    expect(resolve({ start_time: 0 }).startTime).toBe('1970-01-01T00:00:00.000Z');
  });

  it('reads dates and date-times without a zone in the time_zone of the request, a date as a whole day', () => {
    // The forms scripts and sync tools send: a day, a local date-time, and an offset without its sign.
    expect(resolve({ start_time: '2026-11-27', end_time: '2026-11-30', time_zone: '00:00' })).toMatchObject({
      startTime: '2026-11-27T00:00:00.000Z',
      endTime: '2026-12-01T00:00:00.000Z',
      timeZoneMinutes: 0,
    });
    expect(resolve({ start_time: '2026-11-27T08:00:00', end_time: '2026-11-27', time_zone: '-05:00' })).toMatchObject({
      startTime: '2026-11-27T13:00:00.000Z',
      endTime: '2026-11-28T05:00:00.000Z',
    });
  });

  it('takes an empty range (end equal to start)', () => {
    expect(resolve({ end_time: '2024-03-01T00:00:00Z' }).endTime).toBe('2024-03-01T00:00:00.000Z');
  });

  it.each<[string, Partial<EventExportRequest>, RegExp]>([
    ['an end before the start', { end_time: '2024-02-29T23:59:59Z' }, /^end_time: must not be before start_time/],
    ['a start past the representable range', { start_time: 9e15 }, /^start_time: /],
    ['an end that is a leap second', { end_time: '2016-12-31T23:59:60Z' }, /^end_time: /],
  ])('refuses %s, naming the field', (_case, request, detail) => {
    expect(() => resolve(request)).toThrow(DomainError);
    expect(() => resolve(request)).toThrow(detail);
  });
});

describe('parseExportRequest', () => {
  const valid = { format: 'json', conditions: [], start_time: '2024-03-01T00:00:00Z' };
  const detail = (body: unknown): string => {
    try {
      resolveExportRequest(parseExportRequest(body));
      return 'valid';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it.each([
    ['no format', { conditions: [], start_time: valid.start_time }, 'format: is required'],
    ['an unknown format', { ...valid, format: 'xml' }, 'format: must be one of "csv", "json"'],
    ['no conditions', { format: 'json', start_time: valid.start_time }, 'conditions: is required'],
    ['conditions that are not a list', { ...valid, conditions: 'name == a' }, 'conditions: must be array'],
    ['no start_time', { format: 'json', conditions: [] }, 'start_time: is required'],
    [
      'a start_time that is no date',
      { ...valid, start_time: 'last week' },
      /^start_time: must be an ISO 8601 date-time .*got "last week"$/,
    ],
    [
      'a start_time without seconds',
      { ...valid, start_time: '2024-03-01T00:00' },
      /^start_time: must be an ISO 8601 date-time .* or without one \(read in time_zone\), a date YYYY-MM-DD/,
    ],
    ['a start_time on a day that does not exist', { ...valid, start_time: '2023-02-29' }, /^start_time: must be an ISO 8601 date-time/],
    ['an end_time that is no date', { ...valid, end_time: 'tomorrow' }, /^end_time: must be an ISO 8601 date-time/],
    ['a limit over the maximum', { ...valid, limit: EXPORT_MAX_EVENTS + 1 }, `limit: must be <= ${EXPORT_MAX_EVENTS}`],
    ['a limit of 0', { ...valid, limit: 0 }, 'limit: must be >= 1'],
    ['a negative offset', { ...valid, offset: -1 }, 'offset: must be >= 0'],
    ['a time_zone out of range', { ...valid, time_zone: '+15:00' }, /^time_zone: /],
    ['an offset JSON reads as Infinity (1e309)', { ...valid, offset: Infinity }, /^offset: /],
    ['an offset of 2^63', { ...valid, offset: 2 ** 63 }, `offset: must be <= ${EXPORT_MAX_OFFSET}`],
    ['an offset over the maximum', { ...valid, offset: EXPORT_MAX_OFFSET + 1 }, `offset: must be <= ${EXPORT_MAX_OFFSET}`],
    ['a fractional offset', { ...valid, offset: 1.5 }, 'offset: must be integer'],
    ['a limit JSON reads as Infinity', { ...valid, limit: Infinity }, /^limit: /],
    [
      'an ISO 8601 basic time_zone (not 530 minutes)',
      { ...valid, time_zone: '+0530' },
      `time_zone: must be ${TIME_ZONE_FORMS}, got "+0530"`,
    ],
    ['a fractional time_zone', { ...valid, time_zone: 1.5 }, `time_zone: must be ${TIME_ZONE_FORMS}, got 1.5`],
    ['a time_zone that is an object', { ...valid, time_zone: { minutes: 60 } }, /^time_zone: /],
    ['an invalid address', { ...valid, email: 'nope' }, /^email: /],
    ['an invalid address in a list', { ...valid, email: ['a@example.com', 'nope'] }, 'email.1: must match format "email"'],
    [
      `more than ${EXPORT_MAX_EMAILS} addresses`,
      { ...valid, email: Array.from({ length: EXPORT_MAX_EMAILS + 1 }, (_, index) => `ops${index}@example.com`) },
      `email: must NOT have more than ${EXPORT_MAX_EMAILS} items`,
    ],
  ])('names the field for %s', (_case, body, expected) => {
    if (typeof expected === 'string') expect(detail(body)).toBe(expected);
    else expect(detail(body)).toMatch(expected);
  });

  it(`takes the largest offset, ${EXPORT_MAX_OFFSET}, and time_zone minutes as text, read as history reads them`, () => {
    expect(resolveExportRequest(parseExportRequest({ ...valid, offset: EXPORT_MAX_OFFSET, time_zone: '-240' }))).toMatchObject({
      offset: EXPORT_MAX_OFFSET,
      timeZoneMinutes: -240,
    });
  });

  it(`takes ${EXPORT_MAX_EMAILS} addresses to mail`, () => {
    const email = Array.from({ length: EXPORT_MAX_EMAILS }, (_, index) => `ops${index}@example.com`);
    expect(resolveExportRequest(parseExportRequest({ ...valid, email })).emails).toEqual(email);
  });

  it('leaves the conditions to the condition compiler', () => {
    expect(parseExportRequest({ ...valid, conditions: [['name', '>', 'a']] }).conditions).toEqual([['name', '>', 'a']]);
  });
});
