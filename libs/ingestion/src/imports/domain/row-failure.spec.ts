import { storableFailure } from './row-failure';

describe('storableFailure', () => {
  it('replaces what PostgreSQL text cannot hold in fields and reasons quoting the file', () => {
    expect(storableFailure(4, { field: 'a\u0000b', reason: 'near "\ud800"' })).toEqual({
      line: 4,
      field: 'a\ufffdb',
      reason: 'near "\ufffd"',
    });
  });
});
