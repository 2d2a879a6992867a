import { prefersCsv } from './accept';

describe('prefersCsv', () => {
  it.each([
    ['text/csv', true],
    ['text/csv; charset=utf-8', true],
    ['application/json, text/csv;q=0.5', false],
    ['text/csv, application/json', true],
    ['application/json;q=0.4, text/csv;q=0.9', true],
    ['text/csv;q=0', false],
    [undefined, false],
    ['*/*', false],
    ['text/*', false],
    ['application/json', false],
  ])('Accept %p -> CSV %p', (accept, csv) => {
    expect(prefersCsv(accept)).toBe(csv);
  });
});
