import { parseBasicAuthorization } from './basic-credentials';

const basic = (text: string): string => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

describe('parseBasicAuthorization', () => {
  it('reads the key and secret of a well-formed header', () => {
    expect(parseBasicAuthorization(basic('abc:s3cret'))).toEqual({ kind: 'credentials', key: 'abc', secret: 's3cret' });
  });

  it('accepts any case of the scheme name, extra spaces and missing base64 padding', () => {
    expect(parseBasicAuthorization(`bAsIc   ${Buffer.from('k:s').toString('base64')}  `)).toMatchObject({ key: 'k', secret: 's' });
    const unpadded = Buffer.from('k:se').toString('base64').replace(/=+$/, '');
    expect(parseBasicAuthorization(`Basic ${unpadded}`)).toMatchObject({ key: 'k', secret: 'se' });
  });

  it('splits at the first colon: secrets may contain colons', () => {
    expect(parseBasicAuthorization(basic('key:a:b:c'))).toMatchObject({ key: 'key', secret: 'a:b:c' });
  });

  it.each([undefined, '', '   '])('reports %p as missing', (header) => {
    expect(parseBasicAuthorization(header)).toEqual({ kind: 'missing' });
  });

  it.each([
    ['another scheme', 'Bearer abcdef', "'Basic' scheme"],
    ['the scheme alone', 'Basic', "'Basic' scheme"],
    ['two tokens', 'Basic abc def', "'Basic' scheme"],
    ['characters outside base64', 'Basic a*b!', 'not valid base64'],
    ['no colon', basic('keyonly'), "no ':'"],
    ['an empty key', basic(':secret'), 'API key (user name) is empty'],
    ['an empty secret', basic('key:'), 'API secret (password) is empty'],
  ])('reports a header with %s as malformed, saying why', (_case, header, reason) => {
    const parsed = parseBasicAuthorization(header);
    expect(parsed.kind).toBe('malformed');
    expect(parsed.kind === 'malformed' && parsed.reason).toContain(reason);
  });
});
