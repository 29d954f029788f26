import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, generateSigningSecret, SecretDecryptionError } from './secrets';

describe('secrets at rest (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh IV each time and no plaintext in the stored form', () => {
    const secret = 'msec_very-secret-value-ünïcode';
    const a = encryptSecret(key, secret);
    const b = encryptSecret(key, secret);
    expect(a).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('very-secret');
    expect(decryptSecret(key, a)).toBe(secret);
    expect(decryptSecret(key, b)).toBe(secret);
    expect(decryptSecret(key, encryptSecret(key, ''))).toBe('');
  });

  it('refuses a wrong key, a tampered value and malformed input', () => {
    const stored = encryptSecret(key, 'hello');
    expect(() => decryptSecret(randomBytes(32), stored)).toThrow(SecretDecryptionError);
    const [v, iv, tag, ct] = stored.split(':') as [string, string, string, string];
    const flipped = Buffer.from(ct, 'base64');
    flipped[0]! ^= 1;
    expect(() => decryptSecret(key, [v, iv, tag, flipped.toString('base64')].join(':'))).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(key, [v, iv, Buffer.alloc(16).toString('base64'), ct].join(':'))).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(key, `v2:${iv}:${tag}:${ct}`)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(key, 'garbage')).toThrow(SecretDecryptionError);
    expect(() => encryptSecret(randomBytes(16), 'x')).toThrow(/32 bytes/);
  });

  it('generates prefixed base64url secrets of 32 random bytes', () => {
    const s = generateSigningSecret('msec_');
    expect(s).toMatch(/^msec_[A-Za-z0-9_-]{43}$/);
    expect(generateSigningSecret('msec_')).not.toBe(s);
  });
});
