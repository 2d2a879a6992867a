import { hashSecret, isWellFormedApiKey, newAccountId, newApiKey, newApiSecret, secretMatches } from './credentials';

describe('credentials', () => {
  it('generates 24-hex-character account ids and keys, different every time', () => {
    expect(newAccountId()).toMatch(/^[0-9a-f]{24}$/);
    expect(newApiKey()).toMatch(/^[0-9a-f]{24}$/);
    expect(newApiKey()).not.toBe(newApiKey());
  });

  it('generates 256-bit base64url secrets', () => {
    const secret = newApiSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
  });

  it('matches a secret only against its own hash', () => {
    const secret = newApiSecret();
    const stored = hashSecret(secret);
    expect(secretMatches(secret, stored)).toBe(true);
    expect(secretMatches(`${secret}x`, stored)).toBe(false);
    expect(secretMatches(newApiSecret(), stored)).toBe(false);
    expect(secretMatches(secret, Buffer.alloc(0))).toBe(false);
  });

  it('recognises only keys of the issued form', () => {
    expect(isWellFormedApiKey(newApiKey())).toBe(true);
    expect(isWellFormedApiKey('ABCDEF0123456789abcdef01')).toBe(false);
    expect(isWellFormedApiKey('0123')).toBe(false);
    expect(isWellFormedApiKey(`${newApiKey()}' OR 1=1`)).toBe(false);
  });
});
