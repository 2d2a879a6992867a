import { assertExportablePropertyNames, exportColumns, exportRenderer } from './membership-export-format';

describe('exportColumns', () => {
  it('puts user_id first, then each requested property once, in the order asked', () => {
    expect(exportColumns([])).toEqual(['user_id']);
    expect(exportColumns(['plan', 'user_id', 'email', 'plan'])).toEqual(['user_id', 'plan', 'email']);
  });
});

describe('assertExportablePropertyNames', () => {
  it('takes any text a profile can hold, emoji included', () => {
    expect(() => assertExportablePropertyNames(['plan', 'Zoë', '😀', 'a.b'])).not.toThrow();
  });

  it.each([
    [['plan', 'email', 'x', 'a\u0000b'], /^property_names\[3\]: contains a NUL character/],
    [['\ud800'], /^property_names\[0\]: contains a lone UTF-16 surrogate/],
  ])('refuses %j with a 400 naming the name by its index', (names, detail) => {
    expect(() => assertExportablePropertyNames(names)).toThrow(
      expect.objectContaining({ code: 'invalid_request', detail: expect.stringMatching(detail) }),
    );
  });
});

describe('json (newline-delimited) export rows', () => {
  it('writes one object per line: user_id first, then the properties, missing ones as null', () => {
    const render = exportRenderer('json', ['email', 'plan', 'age']);
    expect(render.header).toBe('');
    const line = render.row('u1', { plan: 'pro', age: 31, ignored: true });
    expect(line).toBe('{"user_id":"u1","email":null,"plan":"pro","age":31}\n');
    expect(Object.keys(JSON.parse(line) as object)).toEqual(['user_id', 'email', 'plan', 'age']);
  });

  it('writes only user_id when no property was asked for, and null for a member without profile', () => {
    expect(exportRenderer('json', []).row('u1', { plan: 'pro' })).toBe('{"user_id":"u1"}\n');
    expect(exportRenderer('json', ['plan']).row('u2', undefined)).toBe('{"user_id":"u2","plan":null}\n');
  });

  it('keeps nested values as JSON and reads only the profile own properties', () => {
    const render = exportRenderer('json', ['address', 'toString', '__proto__']);
    const profile = JSON.parse('{"address":{"city":"Lyon"},"__proto__":"own"}') as Record<string, unknown>;
    expect(JSON.parse(render.row('u1', profile))).toEqual({
      user_id: 'u1',
      address: { city: 'Lyon' },
      toString: null,
      ['__proto__']: 'own',
    });
  });
});

describe('csv export rows', () => {
  it('starts with the header user_id,<property_names...> and writes one row per member', () => {
    const render = exportRenderer('csv', ['email', 'plan']);
    expect(render.header).toBe('user_id,email,plan\n');
    expect(render.row('u1', { email: 'a@example.com', plan: 'pro' })).toBe('u1,a@example.com,pro\n');
  });

  it('writes null and missing values as empty cells, numbers and booleans as text', () => {
    const render = exportRenderer('csv', ['a', 'b', 'c', 'd']);
    expect(render.row('u1', { a: null, c: 0, d: false })).toBe('u1,,,0,false\n');
    expect(render.row('u2', undefined)).toBe('u2,,,,\n');
  });

  it('quotes cells with commas, quotes or line breaks, and writes arrays and objects as JSON in one cell', () => {
    const render = exportRenderer('csv', ['name', 'tags', 'note']);
    expect(render.row('u,1', { name: 'Say "hi"', tags: ['x', 'y'], note: 'two\nlines' })).toBe(
      '"u,1","Say ""hi""","[""x"",""y""]","two\nlines"\n',
    );
  });

  it('neutralises formula cells of ids, properties and property names, and leaves negative numbers as numbers', () => {
    const render = exportRenderer('csv', ['=name', 'balance']);
    expect(render.header).toBe(`user_id,"'=name",balance\n`);
    expect(render.row('@u1', { '=name': '=HYPERLINK("x")', balance: -5 })).toBe(`"'@u1","'=HYPERLINK(""x"")",-5\n`);
  });

  it('quotes a header cell that needs it', () => {
    expect(exportRenderer('csv', ['a,b']).header).toBe('user_id,"a,b"\n');
  });

  it('names the file type and extension of each format', () => {
    expect(exportRenderer('csv', [])).toMatchObject({ extension: 'csv', contentType: expect.stringMatching(/^text\/csv/) });
    expect(exportRenderer('json', [])).toMatchObject({ extension: 'ndjson', contentType: 'application/x-ndjson' });
  });
});
