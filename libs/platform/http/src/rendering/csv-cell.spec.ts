import { csvCell, csvRecord } from './csv-cell';

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://x.test","click")', `"'=HYPERLINK(""http://x.test"",""click"")"`],
    ['+1+cmd', `"'+1+cmd"`],
    ["-2+3+cmd|' /C calc'!A0", `"'-2+3+cmd|' /C calc'!A0"`],
    ['@SUM(A1:A9)', `"'@SUM(A1:A9)"`],
    ['\t=1+1', `"'\t=1+1"`],
    ['\r=1+1', `"'\r=1+1"`],
    ['-', `"'-"`],
    ['-Infinity', `"'-Infinity"`],
  ])('neutralises %j, which a spreadsheet would run as a formula, with a quote before it, quoted', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it('neutralises the text of a value that is not a string, and a typed number that is not a number in JSON syntax', () => {
    expect(csvCell(['=1'])).toBe('"[""=1""]"');
    expect(csvCell(-Infinity)).toBe(`"'-Infinity"`);
  });

  it.each([
    [-5, '-5'],
    [-1.5e-7, '-1.5e-7'],
    ['-5', '-5'],
    ['-0.25', '-0.25'],
    ['-1E+21', '-1E+21'],
  ])('leaves %j as it is: a number in JSON syntax, which a spreadsheet reads as that number', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('leaves text that only holds a formula character later as it is, quoting only what RFC 4180 quotes', () => {
    expect(csvCell('a=b+c@d')).toBe('a=b+c@d');
    expect(csvCell(' =1')).toBe(' =1');
    expect(csvCell('a, "b"\nc')).toBe('"a, ""b""\nc"');
  });

  it('writes null and undefined as empty cells, arrays and objects as JSON text, dates in ISO 8601', () => {
    expect(csvRecord([null, undefined, true, 3, { k: [1] }, new Date(Date.UTC(2024, 4, 1))])).toBe(
      ',,true,3,"{""k"":[1]}",2024-05-01T00:00:00.000Z',
    );
  });
});
