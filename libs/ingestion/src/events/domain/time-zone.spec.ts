import { TIME_ZONE_FORMS } from '@guidepost/contracts-http';
import { timeZoneMinutesOf, zoneDesignator } from './time-zone';

describe('timeZoneMinutesOf (history and export alike)', () => {
  it.each<[unknown, number]>([
    ['-04:00', -240],
    ['+05:30', 330],
    ['+14:00', 840],
    ['-14:00', -840],
    ['+00:00', 0],
    ['-00:00', 0],
    ['00:00', 0],
    ['05:30', 330],
    [330, 330],
    [-240, -240],
    [-0, 0],
    ['330', 330],
    ['-240', -240],
    ['0', 0],
  ])('reads %j as %i minutes east of UTC', (value, minutes) => {
    expect(Object.is(timeZoneMinutesOf(value), minutes)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an ISO 8601 basic offset, which the grammar does not take (not 530 minutes)', '+0530'],
    ['minutes with a leading zero', '0530'],
    ['minutes with a + sign', '+330'],
    ['an offset over 14 hours', '+15:00'],
    ['minutes over 840', 841],
    ['minutes under -840', -841],
    ['a fraction', 1.5],
    ['a number JSON reads as Infinity', Infinity],
    ['a zone name', 'Europe/Paris'],
    ['a boolean', true],
    ['null', null],
  ])('refuses %s, naming time_zone and its grammar', (_case, value) => {
    expect(() => timeZoneMinutesOf(value)).toThrow(`time_zone: must be ${TIME_ZONE_FORMS}, got `);
  });
});

describe('zoneDesignator', () => {
  it.each([
    [0, 'Z'],
    [-240, '-04:00'],
    [330, '+05:30'],
    [-30, '-00:30'],
    [840, '+14:00'],
    [-720, '-12:00'],
  ])('renders %i minutes as %s', (minutes, designator) => {
    expect(zoneDesignator(minutes)).toBe(designator);
  });
});
