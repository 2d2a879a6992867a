import { assertValidBlobKey, InvalidBlobKeyError, MAX_BLOB_KEY_LENGTH } from './blob-key';

describe('blob keys', () => {
  it.each(['export.csv', 'exports/2026/job-1_a.ndjson', 'a', '_staging/file-1'])('accepts %s', (key) => {
    expect(() => assertValidBlobKey(key)).not.toThrow();
  });

  it.each([
    ['', 'is empty'],
    ['../secret', '".."'],
    ['exports/../../etc/passwd', '".."'],
    ['a..b', '".."'],
    ['/etc/passwd', 'empty path segment'],
    ['exports/', 'empty path segment'],
    ['exports//a', 'empty path segment'],
    ['./a', 'must not start with "."'],
    ['exports/.hidden', 'must not start with "."'],
    ['exports\\a', 'may hold only'],
    ['with space', 'may hold only'],
    ['query?x=1', 'may hold only'],
    ['pct%2e', 'may hold only'],
    ['new\nline', 'may hold only'],
    ['ünïcode', 'may hold only'],
  ])('refuses %j (%s)', (key, reason) => {
    expect(() => assertValidBlobKey(key)).toThrow(InvalidBlobKeyError);
    expect(() => assertValidBlobKey(key)).toThrow(reason);
  });

  it('refuses keys longer than the limit', () => {
    expect(() => assertValidBlobKey('a'.repeat(MAX_BLOB_KEY_LENGTH))).not.toThrow();
    expect(() => assertValidBlobKey('a'.repeat(MAX_BLOB_KEY_LENGTH + 1))).toThrow('longer than');
  });
});
