import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a token: compared as digests, tokens of any length take the same time and leak nothing. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Constant-time check of a presented token against the digest of the expected one; false when either is missing. */
export function tokenMatches(presented: string | undefined, expected: Buffer | undefined): boolean {
  return presented !== undefined && expected !== undefined && timingSafeEqual(tokenDigest(presented), expected);
}
