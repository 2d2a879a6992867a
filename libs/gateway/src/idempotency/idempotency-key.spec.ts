import { DomainError } from '@guidepost/platform-errors';
import { idempotencyKeyOf, replayableHeaders } from './idempotency-key';

describe('idempotencyKeyOf', () => {
  it('takes the key of a POST, PATCH or DELETE, and ignores it on other methods', () => {
    for (const method of ['POST', 'PATCH', 'DELETE']) expect(idempotencyKeyOf(method, { 'idempotency-key': 'abc' })).toBe('abc');
    for (const method of ['GET', 'HEAD', 'PUT', 'OPTIONS']) expect(idempotencyKeyOf(method, { 'idempotency-key': 'abc' })).toBeUndefined();
    expect(idempotencyKeyOf('POST', {})).toBeUndefined();
  });

  it('takes 1 to 255 printable ASCII characters', () => {
    expect(idempotencyKeyOf('POST', { 'idempotency-key': 'x' })).toBe('x');
    expect(idempotencyKeyOf('POST', { 'idempotency-key': '~'.repeat(255) })).toBe('~'.repeat(255));
    expect(idempotencyKeyOf('POST', { 'idempotency-key': 'a key with spaces' })).toBe('a key with spaces');
  });

  it.each([
    ['empty', '', /it is empty$/],
    ['too long', 'k'.repeat(256), /it has 256$/],
    ['not ASCII', 'clé', /ASCII/],
    ['holding a tab', 'a\tb', /ASCII/],
    ['holding DEL', 'a\u007fb', /ASCII/],
  ])('refuses a key that is %s with a 400 naming the header', (_label, key, detail) => {
    const refuse = () => idempotencyKeyOf('POST', { 'idempotency-key': key });
    expect(refuse).toThrow(DomainError);
    expect(refuse).toThrow(/^Idempotency-Key: must be 1 to 255 printable ASCII characters/);
    expect(refuse).toThrow(detail);
  });
});

describe('replayableHeaders', () => {
  it('keeps what describes the body and where the result is, not framing, rate limits or request ids', () => {
    expect(
      replayableHeaders({
        'content-type': 'application/json; charset=utf-8',
        location: '/v2/accounts/acme/jobs/j1',
        'content-length': 42,
        'ratelimit-remaining': '3',
        'x-request-id': 'r1',
        'x-api-version': '2.32.0',
        'set-cookie': ['a=b'],
        link: ['<a>; rel="next"', '<b>; rel="prev"'],
      }),
    ).toEqual({
      'content-type': 'application/json; charset=utf-8',
      location: '/v2/accounts/acme/jobs/j1',
      link: '<a>; rel="next", <b>; rel="prev"',
    });
  });
});
