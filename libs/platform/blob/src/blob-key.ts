/** Longest key accepted; well inside every file system's path limit and S3's 1024-byte key limit. */
export const MAX_BLOB_KEY_LENGTH = 512;

/** A segment: letters, digits, `.`, `_`, `-`, not starting with `.` (no `.`, `..` or hidden files). */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Thrown for a key that could escape the store's folder or that not every adapter can hold. */
export class InvalidBlobKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`invalid blob key ${JSON.stringify(key.slice(0, MAX_BLOB_KEY_LENGTH))}: ${reason}`);
    this.name = 'InvalidBlobKeyError';
  }
}

/**
 * Keys become file paths in the folder adapter, so anything that could leave the folder (absolute
 * paths, `..`, backslashes) or that needs escaping in a URL is refused.
 */
export function assertValidBlobKey(key: string): void {
  if (key.length === 0) throw new InvalidBlobKeyError(key, 'is empty');
  if (key.length > MAX_BLOB_KEY_LENGTH) throw new InvalidBlobKeyError(key, `is longer than ${MAX_BLOB_KEY_LENGTH} characters`);
  if (key.includes('..')) throw new InvalidBlobKeyError(key, 'contains ".."');
  const badSegment = key.split('/').find((segment) => !SEGMENT.test(segment));
  if (badSegment !== undefined) {
    throw new InvalidBlobKeyError(
      key,
      badSegment === ''
        ? 'has an empty path segment (leading, trailing or doubled "/")'
        : `segment ${JSON.stringify(badSegment)} may hold only letters, digits, ".", "_" and "-" and must not start with "."`,
    );
  }
}
