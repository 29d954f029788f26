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

/** The Standard Webhooks secret prefix. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * A webhook signing secret as Standard Webhooks libraries load it (`new Webhook(secret)`):
 * `whsec_` + standard base64 of 24 random bytes (32 characters, no padding).
 */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$/;

/**
 * The HMAC key of the `webhook-signature` header (docs/webhooks.md, Two signatures): for
 * `whsec_` + base64 (generated secrets, and caller-chosen ones in that form) the decoded bytes, as
 * the Standard Webhooks libraries derive it; `whsec_` + base64url decodes the same way (from
 * base64url). Any other secret is used as its
 * raw bytes (`new Webhook(secret, { format: 'raw' })`). `X-Webhook-Signature` always uses the
 * secret string itself.
 */
export function webhookSigningKey(secret: string): Buffer {
  if (secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
    if (BASE64.test(encoded) && encoded.replace(/=+$/, '').length % 4 !== 1) {
      const key = Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64');
      if (key.length > 0) return key;
    }
  }
  return Buffer.from(secret, 'utf8');
}
