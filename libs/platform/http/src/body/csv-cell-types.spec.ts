import { csvColumnsOf, csvRecordTyper, typedCsvCell, typedCsvRecord } from './csv-cell-types';

describe('typedCsvCell', () => {
  it.each([
    ['-12', -12],
    ['0', 0],
    ['3.5', 3.5],
    ['1e3', 1000],
    ['-2.5E-2', -0.025],
  ])('reads %s, in JSON number syntax, as a number', (cell, value) => {
    expect(typedCsvCell('seats', cell)).toBe(value);
  });

  it.each(['007', '+1', '.5', '5.', '1,5', '0x1F', 'NaN', 'Infinity', '1e', '12abc', ' ', '1e999'])(
    'keeps %j, which is not a JSON number, as text',
    (cell) => {
      expect(typedCsvCell('seats', cell)).toBe(cell);
    },
  );

  it('reads true and false as booleans, and only those spellings', () => {
    expect(typedCsvCell('beta', 'true')).toBe(true);
    expect(typedCsvCell('beta', 'false')).toBe(false);
    expect(typedCsvCell('beta', 'TRUE')).toBe('TRUE');
    expect(typedCsvCell('beta', 'yes')).toBe('yes');
  });

  it.each(['t', 'tru', 'trueish', 'f', 'fals', 'falsehood', '-', '--1', '-x', '9 lives'])(
    'keeps %j, which starts like a boolean or a number but is neither, as text',
    (cell) => {
      expect(typedCsvCell('note', cell)).toBe(cell);
    },
  );

  it('treats an empty cell as absent', () => {
    expect(typedCsvCell('plan', '')).toBeUndefined();
  });

  it.each(['user_id', 'userId', 'group_id', 'groupId', 'name', 'timestamp', 'context.url'])(
    'keeps the %s column as text, numbers, booleans and empty cells included',
    (column) => {
      expect(typedCsvCell(column, '007')).toBe('007');
      expect(typedCsvCell(column, '12')).toBe('12');
      expect(typedCsvCell(column, 'true')).toBe('true');
      expect(typedCsvCell(column, '')).toBe('');
    },
  );
});

describe('typedCsvRecord', () => {
  it('keys the typed cells by column and leaves absent cells out', () => {
    expect(typedCsvRecord(['user_id', 'plan', 'seats', 'beta', 'note'], ['42', 'pro', '12', 'false', ''])).toEqual({
      user_id: '42',
      plan: 'pro',
      seats: 12,
      beta: false,
    });
  });

  it('keeps a column named __proto__ as a property of its own', () => {
    const record = typedCsvRecord(['__proto__'], ['x']);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(['__proto__']);
  });
});

describe('csvRecordTyper', () => {
  it('types every row under a header as typedCsvRecord does, rows with empty cells included', () => {
    const columns = ['user_id', 'plan', 'seats', 'beta', 'note'];
    const typed = csvRecordTyper(columns);
    const rows = [
      ['007', 'pro', '12', 'true', 'Zoë, ""hi""'],
      ['', '', '', '', ''],
      ['8', '3.5', '-0', 'false', 'true story'],
    ];
    expect(rows.map(typed)).toEqual(rows.map((cells) => typedCsvRecord(columns, cells)));
    expect(rows.map(typed)).toEqual([
      { user_id: '007', plan: 'pro', seats: 12, beta: true, note: 'Zoë, ""hi""' },
      { user_id: '' },
      { user_id: '8', plan: 3.5, seats: -0, beta: false, note: 'true story' },
    ]);
  });

  it('takes column names as data, whatever characters they hold', () => {
    const columns = ['a"b', "c'd", 'e\\', '`${f}`', '});throw 1;({', 'g\u2028h', 'constructor', '__proto__', 'name'];
    const cells = ['1', 'true', 'x', '', '2.5', 'y', 'z', 'w', '007'];
    const record = csvRecordTyper(columns)(cells);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.entries(record)).toEqual([
      ['a"b', 1],
      ["c'd", true],
      ['e\\', 'x'],
      ['});throw 1;({', 2.5],
      ['g\u2028h', 'y'],
      ['constructor', 'z'],
      ['__proto__', 'w'],
      ['name', '007'],
    ]);
  });

  it('types the rows of a header too wide to compile as typedCsvRecord does', () => {
    const columns = Array.from({ length: 1500 }, (_, index) => (index === 0 ? 'user_id' : `c${index}`));
    const cells = columns.map((_, index) => (index % 3 === 0 ? String(index) : index % 3 === 1 ? '' : 'true'));
    expect(csvRecordTyper(columns)(cells)).toEqual(typedCsvRecord(columns, cells));
    expect(Object.keys(csvRecordTyper(columns)(cells))).toHaveLength(1000);
  });
});

describe('csvColumnsOf', () => {
  it('gives the header cells as column names', () => {
    expect(csvColumnsOf({ line: 1, cells: ['plan', 'seats'] })).toEqual(['plan', 'seats']);
  });

  it('names the line and the column of an unnamed column', () => {
    expect(() => csvColumnsOf({ line: 3, cells: ['plan', ''] })).toThrow(
      expect.objectContaining({ detail: 'line 3: column 2 has no name' }),
    );
  });

  it('names a column given twice', () => {
    expect(() => csvColumnsOf({ line: 1, cells: ['plan', 'seats', 'plan'] })).toThrow(
      expect.objectContaining({ detail: "line 1: column 'plan' appears twice" }),
    );
  });
});
