import { EXPORT_MAX_EVENTS, type EventExportRequest } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-http';
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
    ['a start_time that is no date', { ...valid, start_time: 'last week' }, /^start_time: must be an ISO 8601 date-time .*got "last week"$/],
    ['a start_time without a zone', { ...valid, start_time: '2024-03-01T00:00:00' }, /^start_time: must be an ISO 8601 date-time/],
    ['an end_time that is no date', { ...valid, end_time: 'tomorrow' }, /^end_time: must be an ISO 8601 date-time/],
    ['a limit over the maximum', { ...valid, limit: EXPORT_MAX_EVENTS + 1 }, `limit: must be <= ${EXPORT_MAX_EVENTS}`],
    ['a limit of 0', { ...valid, limit: 0 }, 'limit: must be >= 1'],
    ['a negative offset', { ...valid, offset: -1 }, 'offset: must be >= 0'],
    ['a time_zone out of range', { ...valid, time_zone: '+15:00' }, /^time_zone: /],
    ['an invalid address', { ...valid, email: 'nope' }, /^email: /],
    ['an invalid address in a list', { ...valid, email: ['a@example.com', 'nope'] }, /^email: /],
    ['an unknown field', { ...valid, colour: 'blue' }, 'colour: is not a known field'],
  ])('names the field for %s', (_case, body, expected) => {
    if (typeof expected === 'string') expect(detail(body)).toBe(expected);
    else expect(detail(body)).toMatch(expected);
  });

  it('leaves the conditions to the condition compiler', () => {
    expect(parseExportRequest({ ...valid, conditions: [['name', '>', 'a']] }).conditions).toEqual([['name', '>', 'a']]);
  });
});
