import { zoneDesignator } from './time-zone';

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
