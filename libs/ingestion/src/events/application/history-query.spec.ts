import { EVENT_HISTORY_MAX_LIMIT, TIME_ZONE_FORMS } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { historyQueryOf } from './history-query';

const parse = (query: Record<string, unknown>) => historyQueryOf('acme', 'user-1', query);

function failure(query: Record<string, unknown>): string {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_request');
    return (error as DomainError).detail;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be refused`);
}

describe('historyQueryOf', () => {
  it('defaults to the 100 latest events in UTC and ignores unknown parameters', () => {
    expect(parse({ page: '2', sort: 'asc' })).toEqual({ accountId: 'acme', userId: 'user-1', limit: 100, timeZoneMinutes: 0 });
  });

  it.each([
    ['1', 1],
    ['25', 25],
    [String(EVENT_HISTORY_MAX_LIMIT), EVENT_HISTORY_MAX_LIMIT],
  ])('takes limit=%s', (limit, expected) => {
    expect(parse({ limit }).limit).toBe(expected);
  });

  it.each(['0', '-1', String(EVENT_HISTORY_MAX_LIMIT + 1), '2.5', 'ten', '', '1e3', '99999999999999999999'])(
    'refuses limit=%j naming limit and its range',
    (limit) => {
      expect(failure({ limit })).toBe(`limit: must be a whole number from 1 to ${EVENT_HISTORY_MAX_LIMIT}, got ${JSON.stringify(limit)}`);
    },
  );

  it('refuses a repeated limit', () => {
    expect(failure({ limit: ['1', '2'] })).toBe('limit: must be given once');
  });

  it.each([
    ['-04:00', -240],
    ['+05:30', 330],
    [' 05:30', 330],
    ['05:30', 330],
    ['+00:00', 0],
    ['+14:00', 840],
    ['-240', -240],
    ['330', 330],
    ['0', 0],
    ['-00:00', 0],
    ['-840', -840],
    ['840', 840],
  ])('takes time_zone=%j as %i minutes', (timeZone, minutes) => {
    expect(parse({ time_zone: timeZone }).timeZoneMinutes).toBe(minutes);
  });

  it.each([
    ['an ISO 8601 basic offset, which is not 530 minutes', '+0530'],
    ['the same with its + sent unencoded', ' 0530'],
    ['minutes with a leading zero', '0530'],
    ['minutes with a + sign', '+60'],
    ['-0', '-0'],
    ['hours only', '+05'],
    ['an offset without its sign and with one hour digit', '5:30'],
    ['a one-digit hour', '+5:30'],
    ['an offset beyond +14:00', '+14:30'],
    ['minutes beyond 840', '841'],
    ['minutes beyond -840', '-900'],
    ['a fraction', '1.5'],
    ['a zone name', 'Europe/Paris'],
    ['Z', 'Z'],
    ['nothing', ''],
    ['surrounding spaces', '-04:00 '],
  ])('refuses %s (%j) naming time_zone and its grammar', (_case, timeZone) => {
    expect(failure({ time_zone: timeZone })).toBe(
      `time_zone: must be ${TIME_ZONE_FORMS}, got ${JSON.stringify(timeZone.startsWith(' ') ? `+${timeZone.slice(1)}` : timeZone)}`,
    );
  });
});
