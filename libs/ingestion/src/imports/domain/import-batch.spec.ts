import { ImportBatch, PUBLISHED_BATCH } from './import-batch';

const LIMITS = { rows: 10, chars: 100 };

describe('ImportBatch', () => {
  it('keeps valid rows with their lines and stores failures with theirs', () => {
    const batch = new ImportBatch<string>(0, LIMITS);
    batch.add(1, { item: 'a', size: 1 });
    batch.add(2, { field: 'name', reason: 'is required' });
    batch.add(4, { item: 'b', size: 1 });
    expect(batch.rows).toBe(3);
    expect(batch.kept()).toEqual({ items: ['a', 'b'], lines: [1, 4], droppedNames: [] });
    expect(batch.failures).toEqual([{ line: 2, field: 'name', reason: 'is required' }]);
  });

  it.each([LIMITS, PUBLISHED_BATCH])('is full at its limit of rows (%j), failed ones included', (limits) => {
    const batch = new ImportBatch<string>(0, limits);
    for (let line = 1; line < limits.rows; line += 1) batch.add(line, line % 2 ? { item: 'x', size: 1 } : { field: null, reason: 'bad' });
    expect(batch.isFull).toBe(false);
    batch.add(limits.rows, { item: 'x', size: 1 });
    expect(batch.isFull).toBe(true);
  });

  it('is full once its rows hold about its limit of characters, however few they are', () => {
    const batch = new ImportBatch<string>(0, LIMITS);
    batch.add(1, { item: 'big', size: LIMITS.chars - 1 });
    expect(batch.isFull).toBe(false);
    batch.add(2, { item: 'big', size: 1 });
    expect(batch.isFull).toBe(true);
  });

  it('leaves out the rows the filtering rules drop, naming them', () => {
    const batch = new ImportBatch<string>(0, LIMITS);
    ['keep', 'spam', 'keep too', 'spam'].forEach((name, index) => batch.add(index + 1, { item: name, size: 1 }));
    expect(batch.kept((name) => (name === 'spam' ? name : undefined))).toEqual({
      items: ['keep', 'keep too'],
      lines: [1, 3],
      droppedNames: ['spam', 'spam'],
    });
  });
});
