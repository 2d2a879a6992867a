import { publicApiTarget } from './public-api-target';

const at = (url: string, routePattern?: string, accountParam?: string) => publicApiTarget({ url, routePattern, accountParam });

describe('publicApiTarget', () => {
  it('guards public routes and reads the account from the route parameter', () => {
    expect(at('/v2/accounts/acme/flows?limit=1', '/v2/accounts/:account_id/flows', 'acme')).toEqual({
      guarded: true,
      accountId: 'acme',
    });
  });

  it('guards unknown paths under /v2/ too, reading the account from the path', () => {
    expect(at('/v2/accounts/acme/no-such-thing')).toEqual({ guarded: true, accountId: 'acme' });
    expect(at('/v2/whatever')).toEqual({ guarded: true, accountId: undefined });
  });

  it.each(['/admin/v1/accounts', '/health', '/metrics', '/openapi.json', '/blobs/abc', '/v2', '/v20/x', '/'])('leaves %s alone', (url) => {
    expect(at(url)).toEqual({ guarded: false });
  });

  it('is not fooled by percent-encoding or doubled slashes the router would see through', () => {
    expect(at('/%762/accounts/acme/flows')).toEqual({ guarded: true, accountId: 'acme' });
    expect(at('//v2//accounts/acme/flows')).toEqual({ guarded: true, accountId: 'acme' });
    expect(at('/odd%path', '/v2/accounts/:account_id/flows', 'acme')).toEqual({ guarded: true, accountId: 'acme' });
  });
});
