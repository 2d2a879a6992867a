import { BlobLinkSigner } from './blob-link-signer';
import { MAX_LINK_TTL_SECONDS } from './link-lifetime';

const SECRET = 'a-signing-secret-of-thirty-two-characters';
const NOW_MS = Date.UTC(2026, 10, 21, 16, 0, 0);
const BASE_URL = 'https://guidepost.example';

function signerAt(nowMs: number, secret = SECRET): BlobLinkSigner {
  return new BlobLinkSigner(secret, () => nowMs);
}

function parametersOf(url: string): { key: string; expires: string; signature: string } {
  const parsed = new URL(url);
  return {
    key: decodeURIComponent(parsed.pathname.replace(/^\/blobs\//, '')),
    expires: parsed.searchParams.get('expires') ?? '',
    signature: parsed.searchParams.get('signature') ?? '',
  };
}

describe('signed blob links', () => {
  const link = signerAt(NOW_MS).sign('exports/job-1.csv', 3600, BASE_URL);
  const { key, expires, signature } = parametersOf(link.url);

  it("point at the blob route of the request's public base URL and say when they expire", () => {
    expect(link.url).toMatch(/^https:\/\/guidepost\.example\/blobs\/exports\/job-1\.csv\?expires=\d+&signature=[0-9a-f]{64}$/);
    expect(key).toBe('exports/job-1.csv');
    expect(Number(expires)).toBe(NOW_MS / 1000 + 3600);
    expect(link.expiresAt).toBe('2026-11-21T17:00:00.000Z');
  });

  it('verify as valid until they expire, and as expired after', () => {
    expect(signerAt(NOW_MS).verify(key, expires, signature)).toBe('valid');
    expect(signerAt(NOW_MS + 3600_000).verify(key, expires, signature)).toBe('valid');
    expect(signerAt(NOW_MS + 3601_000).verify(key, expires, signature)).toBe('expired');
  });

  it('are refused when tampered with', () => {
    const signer = signerAt(NOW_MS);
    expect(signer.verify('exports/job-2.csv', expires, signature)).toBe('invalid');
    expect(signer.verify(key, String(Number(expires) + 86_400), signature)).toBe('invalid');
    const flipped = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
    expect(signer.verify(key, expires, flipped)).toBe('invalid');
  });

  it('are refused when signed with another secret', () => {
    const other = signerAt(NOW_MS, 'another-secret-of-thirty-two-characters!');
    expect(other.verify(key, expires, signature)).toBe('invalid');
  });

  it('are refused when a parameter is missing, repeated or malformed', () => {
    const signer = signerAt(NOW_MS);
    expect(signer.verify(key, undefined, signature)).toBe('invalid');
    expect(signer.verify(key, expires, undefined)).toBe('invalid');
    expect(signer.verify(key, [expires, expires], signature)).toBe('invalid');
    expect(signer.verify(key, `${expires}.0`, signature)).toBe('invalid');
    expect(signer.verify(key, expires, signature.toUpperCase())).toBe('invalid');
    expect(signer.verify(key, expires, signature.slice(2))).toBe('invalid');
  });

  it('cannot outlive one week', () => {
    expect(() => signerAt(NOW_MS).sign(key, MAX_LINK_TTL_SECONDS, BASE_URL)).not.toThrow();
    expect(() => signerAt(NOW_MS).sign(key, MAX_LINK_TTL_SECONDS + 1, BASE_URL)).toThrow(RangeError);
    expect(() => signerAt(NOW_MS).sign(key, 0, BASE_URL)).toThrow(RangeError);
    expect(() => signerAt(NOW_MS).sign(key, 1.5, BASE_URL)).toThrow(RangeError);
  });

  it('are never made for an invalid key', () => {
    expect(() => signerAt(NOW_MS).sign('../etc/passwd', 60, BASE_URL)).toThrow('".."');
  });
});
