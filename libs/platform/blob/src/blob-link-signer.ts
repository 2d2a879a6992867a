import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertValidBlobKey } from './blob-key';
import type { SignedBlobLink } from './blob-store.port';
import { assertValidLinkLifetime } from './link-lifetime';

export type LinkVerdict = 'valid' | 'expired' | 'invalid';

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;
const EXPIRES_PATTERN = /^[0-9]{1,12}$/;

/**
 * Signs and checks blob download links: `<public base URL>/blobs/<key>?expires=<unix seconds>&signature=<hex>`
 * where the signature is HMAC-SHA256 over the key and the expiry. Whoever holds the link may download
 * the object until it expires; nobody can make a link for another key or a later expiry.
 */
export class BlobLinkSigner {
  constructor(
    private readonly secret: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The base is not signed: the link is the same download wherever the client reaches the API. */
  sign(key: string, ttlSeconds: number, publicBaseUrl: string): SignedBlobLink {
    assertValidBlobKey(key);
    assertValidLinkLifetime(ttlSeconds);
    const expires = Math.floor(this.nowMs() / 1000) + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires), signature: this.signature(key, String(expires)) });
    return { url: `${publicBaseUrl}/blobs/${key}?${query.toString()}`, expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** Checks a link's parameters as received (a repeated or missing parameter is not a string). */
  verify(key: string, expires: unknown, signature: unknown): LinkVerdict {
    if (typeof expires !== 'string' || typeof signature !== 'string') return 'invalid';
    if (!EXPIRES_PATTERN.test(expires) || !SIGNATURE_PATTERN.test(signature)) return 'invalid';
    const expected = Buffer.from(this.signature(key, expires), 'hex');
    // Constant time, so response timing reveals nothing about how much of a forged signature matched.
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
    return Math.floor(this.nowMs() / 1000) > Number(expires) ? 'expired' : 'valid';
  }

  /** A newline separates key and expiry (keys never hold one), so no other pair signs the same text. */
  private signature(key: string, expires: string): string {
    return createHmac('sha256', this.secret).update(`${key}\n${expires}`).digest('hex');
  }
}
