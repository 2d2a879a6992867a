import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Generated account ids and API keys: 12 random bytes as 24 lowercase hex characters. */
const GENERATED_ID = /^[0-9a-f]{24}$/;

export function newAccountId(): string {
  return randomBytes(12).toString('hex');
}

export function newApiKey(): string {
  return randomBytes(12).toString('hex');
}

/** 32 random bytes (256 bits), base64url: shown to the caller once and never stored. */
export function newApiSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** True when `key` could be a key this gateway issued; anything else is rejected without a database lookup. */
export function isWellFormedApiKey(key: string): boolean {
  return GENERATED_ID.test(key);
}

/**
 * The stored form of a secret. Secrets are 256-bit random values, not human passwords, so a fast hash
 * is enough: guessing is infeasible whatever the hash costs, and a slow hash would only make every
 * request slower.
 */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time comparison, so response timing tells nothing about how much of a guess was right. */
export function secretMatches(secret: string, storedSha256: Buffer): boolean {
  const candidate = hashSecret(secret);
  return candidate.length === storedSha256.length && timingSafeEqual(candidate, storedSha256);
}
