import { instantOf } from './instant';

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
