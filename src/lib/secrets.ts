/**
 * Secrets at rest (module signing secrets, webhook secrets): AES-256-GCM under ENCRYPTION_KEY
 * (`config.encryptionKey`, 32 bytes). The stored form is `v1:<iv>:<tag>:<ciphertext>`, each part
 * base64 (standard alphabet); a fresh 96-bit IV per encryption; the 128-bit tag authenticates the
 * ciphertext, so a tampered value or a wrong key fails to decrypt instead of yielding garbage.
 * The `v1` prefix leaves room for a key rotation scheme later.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The value cannot be decrypted: wrong key, tampered or malformed. Never carries the plaintext. */
export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

function assertKey(key: Buffer): void {
  if (key.length !== 32) throw new Error('The encryption key must be 32 bytes.');
}

export function encryptSecret(key: Buffer, plaintext: string): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
}

export function decryptSecret(key: Buffer, stored: string): string {
  assertKey(key);
  const parts = stored.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretDecryptionError('The stored secret has an unknown format.');
  const [, ivB64, tagB64, ctB64] = parts as [string, string, string, string];
  const iv = Buffer.from(ivB64, 'base64');
  const tag = Buffer.from(tagB64, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretDecryptionError('The stored secret has an unknown format.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ctB64, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError('The stored secret could not be decrypted (wrong ENCRYPTION_KEY or tampered value).');
  }
}

/** A random signing secret: `prefix` + base64url of 32 random bytes (e.g. `msec_…`). */
export function generateSigningSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}
