import { exportPages, type RowKey } from './export-pages';

const key = (n: number): RowKey => ({ n, at: `2024-05-01 00:00:00.${String(n).padStart(3, '0')}`, eventId: `e${n}`, userId: 'u1' });

describe('exportPages', () => {
  it('has no page when no row is selected', () => {
    expect(exportPages([], 0, 10, 2)).toEqual([]);
  });

  it('groups segments into pages, the last one ending at the last row, inclusive', () => {
    // offset 5, segments of 10 rows: starts at 6, 16, 26, 36; 35 rows, the last is row 40.
    const pages = exportPages([key(6), key(16), key(26), key(36), key(40)], 5, 10, 2);
    expect(pages).toEqual([
      { from: key(6), to: key(26), toInclusive: false, rows: 20 },
      { from: key(26), to: key(40), toInclusive: true, rows: 15 },
    ]);
    expect(pages.reduce((rows, page) => rows + page.rows, 0)).toBe(35);
  });

  it('takes a last row that also starts a segment once', () => {
    expect(exportPages([key(1), key(4), key(7)], 0, 3, 1)).toEqual([
      { from: key(1), to: key(4), toInclusive: false, rows: 3 },
      { from: key(4), to: key(7), toInclusive: false, rows: 3 },
      { from: key(7), to: key(7), toInclusive: true, rows: 1 },
    ]);
  });

  it('makes a single-row export one page', () => {
    expect(exportPages([key(3)], 2, 5, 4)).toEqual([{ from: key(3), to: key(3), toInclusive: true, rows: 1 }]);
  });
});
