import { asyncAcknowledgement, statusAcknowledgement } from '@guidepost/contracts-http';
import { renderCsv } from './render-csv';

describe('renderCsv', () => {
  it('renders a header line and one row per object, columns in first-seen order across rows', () => {
    expect(
      renderCsv([
        { id: 'a', name: 'A' },
        { id: 'b', size: 3 },
      ]),
    ).toBe('id,name,size\r\na,A,\r\nb,,3\r\n');
  });

  it('renders a single object as one row', () => {
    expect(renderCsv({ id: 's1', user_count: 12, active: true })).toBe('id,user_count,active\r\ns1,12,true\r\n');
  });

  it('leaves null and missing values as empty cells', () => {
    expect(renderCsv([{ a: null, b: undefined, c: 0 }, { d: '' }])).toBe('a,b,c,d\r\n,,0,\r\n,,,\r\n');
  });

  it('puts arrays and objects in one cell as JSON text, quoted as RFC 4180 requires', () => {
    expect(renderCsv({ tags: ['x', 'y'], meta: { k: 1 } })).toBe('tags,meta\r\n"[""x"",""y""]","{""k"":1}"\r\n');
  });

  it('quotes cells holding commas, quotes and line breaks', () => {
    expect(renderCsv({ text: 'a, "b"\nc' })).toBe('text\r\n"a, ""b""\nc"\r\n');
  });

  it('neutralises formula cells (csvCell), in the header as in the rows, and leaves negative numbers as numbers', () => {
    const csv = renderCsv([{ '=cmd': '@SUM(A1)', balance: -5, note: '-1+2', attributes: { '=k': '+x' } }], { flatten: ['attributes'] });
    expect(csv).toBe(`"'=cmd",balance,note,attributes.=k\r\n"'@SUM(A1)",-5,"'-1+2","'+x"\r\n`);
  });

  it('flattens an object field into sorted <field>.<key> columns, the union over all rows, where the field stands', () => {
    const csv = renderCsv(
      [
        { name: 'click', attributes: { zeta: 1, alpha: 'x' }, user_id: 'u1' },
        { name: 'view', attributes: { beta: [1] }, user_id: 'u2' },
        { name: 'bare', user_id: 'u3' },
      ],
      { flatten: ['attributes'] },
    );
    expect(csv).toBe(
      'name,attributes.alpha,attributes.beta,attributes.zeta,user_id\r\n' + 'click,x,,1,u1\r\n' + 'view,,[1],,u2\r\n' + 'bare,,,,u3\r\n',
    );
  });

  it('omits the named fields', () => {
    expect(renderCsv({ id: 'j1', status: 'COMPLETED', events: [{ name: 'Completed' }] }, { omit: ['events'] })).toBe(
      'id,status\r\nj1,COMPLETED\r\n',
    );
  });

  it('renders acknowledgements as status,title and status,title,job_id,job_url', () => {
    expect(renderCsv(statusAcknowledgement())).toBe('status,title\r\n200,OK\r\n');
    expect(renderCsv(asyncAcknowledgement('https://h', 'a', 'j1'))).toBe(
      'status,title,job_id,job_url\r\n202,Accepted,j1,https://h/v2/accounts/a/jobs/j1\r\n',
    );
  });

  it('renders an empty list as an empty document', () => {
    expect(renderCsv([])).toBe('');
  });
});
