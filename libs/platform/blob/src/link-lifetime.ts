/** Longest link lifetime: one week, the most an S3 presigned URL allows. */
export const MAX_LINK_TTL_SECONDS = 604_800;

/** Every adapter's links obey the same bounds, so a caller's lifetime works whichever store is configured. */
export function assertValidLinkLifetime(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_LINK_TTL_SECONDS) {
    throw new RangeError(`link lifetime must be a whole number of seconds from 1 to ${MAX_LINK_TTL_SECONDS}, got ${ttlSeconds}`);
  }
}
