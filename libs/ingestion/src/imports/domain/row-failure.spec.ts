import { DomainError } from '@guidepost/platform-errors';
import { problemOfValidation, storableFailure } from './row-failure';

describe('problemOfValidation', () => {
  it('splits a validator detail into field and reason, the row itself having no field', () => {
    expect(problemOfValidation(new DomainError('invalid_request', 'context.url: must be string'))).toEqual({ field: 'context.url', reason: 'must be string' });
    expect(problemOfValidation(new DomainError('invalid_request', 'body: must be object'))).toEqual({ field: null, reason: 'must be object' });
  });

  it('rethrows what is not a validation failure', () => {
    expect(() => problemOfValidation(new TypeError('bug'))).toThrow('bug');
  });
});

describe('storableFailure', () => {
  it('replaces what PostgreSQL text cannot hold in fields and reasons quoting the file', () => {
    expect(storableFailure(4, { field: 'a\u0000b', reason: 'near "\ud800"' })).toEqual({ line: 4, field: 'a\ufffdb', reason: 'near "\ufffd"' });
  });
});
