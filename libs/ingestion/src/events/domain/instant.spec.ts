import { instantOf, rangeBoundOf } from './instant';
import { fixedOffset, ianaZone } from './time-zone';

describe('instantOf', () => {
  it.each([
    ['2024-05-01T09:30:00Z', '2024-05-01T09:30:00.000Z'],
    ['2024-05-01T05:30:00.123-04:00', '2024-05-01T09:30:00.123Z'],
    ['2024-02-29T00:00:00+01:00', '2024-02-28T23:00:00.000Z'],
    [1714555800123, '2024-05-01T09:30:00.123Z'],
    [0, '1970-01-01T00:00:00.000Z'],
  ])('reads %j as %s', (value, iso) => {
    expect(instantOf(value)?.toISOString()).toBe(iso);
  });

  it.each([
    ['no zone', '2024-05-01T09:30:00'],
    ['a date only', '2024-05-01'],
    ['a day that does not exist', '2023-02-29T00:00:00Z'],
    ['hour 24', '2024-05-01T24:00:00Z'],
    ['a leap second', '2024-06-30T23:59:60Z'],
    ['month 13', '2024-13-01T00:00:00Z'],
    ['free text', 'yesterday'],
    ['a fractional number', 1714555800123.5],
    ['a number a Date cannot hold', 8.64e15 + 1],
    ['a boolean', true],
    ['null', null],
  ])('refuses %s', (_case, value) => {
    expect(instantOf(value)).toBeUndefined();
  });
});

describe("rangeBoundOf (an export's start_time and end_time)", () => {
  it.each<[string, unknown, number, 'start' | 'end', string]>([
    ['a zoned date-time as instantOf reads it, whatever time_zone says', '2024-05-01T09:30:00Z', 330, 'start', '2024-05-01T09:30:00.000Z'],
    ['milliseconds', 1714555800123, -240, 'end', '2024-05-01T09:30:00.123Z'],
    ['a date-time without a zone, in UTC by default', '2024-05-01T09:30:00', 0, 'start', '2024-05-01T09:30:00.000Z'],
    ['a date-time without a zone, in time_zone', '2024-05-01T09:30:00.250', -240, 'end', '2024-05-01T13:30:00.250Z'],
    ['a date as start: its first instant', '2026-11-27', 0, 'start', '2026-11-27T00:00:00.000Z'],
    ['a date as end: after its last instant', '2026-11-30', 0, 'end', '2026-12-01T00:00:00.000Z'],
    ['a date as start, in time_zone', '2026-11-27', 330, 'start', '2026-11-26T18:30:00.000Z'],
    ['a date as end, in time_zone', '2026-11-27', -240, 'end', '2026-11-28T04:00:00.000Z'],
    ['a leap day', '2024-02-29', 0, 'end', '2024-03-01T00:00:00.000Z'],
  ])('reads %s', (_case, value, offsetMinutes, bound, iso) => {
    expect(rangeBoundOf(value, fixedOffset(offsetMinutes), bound)?.toISOString()).toBe(iso);
  });

  it.each([
    ['a day that does not exist', '2023-02-29'],
    ['a date-time without seconds', '2024-05-01T09:30'],
    ['a date-time without a zone at hour 24', '2024-05-01T24:00:00'],
    ['a week date', '2024-W18'],
    ['free text', 'yesterday'],
    ['null', null],
  ])('refuses %s', (_case, value) => {
    expect(rangeBoundOf(value, fixedOffset(0), 'start')).toBeUndefined();
  });
});

describe("rangeBoundOf in an IANA time zone (an analytics query's timezone)", () => {
  const newYork = ianaZone('America/New_York')!;

  it.each<[string, string, 'start' | 'end', string]>([
    ['a date as start, in winter (UTC-5)', '2026-01-15', 'start', '2026-01-15T05:00:00.000Z'],
    ['a date as start, in summer (UTC-4)', '2026-07-15', 'start', '2026-07-15T04:00:00.000Z'],
    ['the day the clocks go forward as end: 23 hours long', '2026-03-08', 'end', '2026-03-09T04:00:00.000Z'],
    ['the day the clocks go back as start', '2026-11-01', 'start', '2026-11-01T04:00:00.000Z'],
    ['the day the clocks go back as end: 25 hours long', '2026-11-01', 'end', '2026-11-02T05:00:00.000Z'],
    ['a date-time without a zone, in summer', '2026-07-15T09:30:00', 'start', '2026-07-15T13:30:00.000Z'],
  ])('reads %s', (_case, value, bound, iso) => {
    expect(rangeBoundOf(value, newYork, bound)?.toISOString()).toBe(iso);
  });

  it.each([
    ['an offset', '+05:00'],
    ['a made-up zone', 'Mars/Olympus_Mons'],
    ['an empty name', ''],
    ['a path', '../etc'],
  ])('knows no zone by %s', (_case, name) => {
    expect(ianaZone(name)).toBeUndefined();
  });

  it('reads UTC as no offset', () => {
    expect(ianaZone('UTC')!(new Date('2026-07-15T00:00:00Z'))).toBe(0);
  });
});
