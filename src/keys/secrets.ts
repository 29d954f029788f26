import { hash } from 'node:crypto';
import { randomBase62 } from '../lib/ids';

export const KEY_PREFIX = 'amp_';
const SECRET_LENGTH = 40;
const DISPLAY_LENGTH = KEY_PREFIX.length + 8;

export function generateKeySecret(): string {
  return KEY_PREFIX + randomBase62(SECRET_LENGTH);
}

/** SHA-256 of the secret, hex. One-shot `hash` (no Hash object): it runs on every authenticated request. */
export function hashKeySecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** The visible start of a secret, shown in key lists. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_LENGTH);
}

/** Cheap shape check before any lookup: right prefix, base62 body, sane length. */
export function looksLikeKeySecret(value: string): boolean {
  return value.startsWith(KEY_PREFIX) && /^[A-Za-z0-9]{32,128}$/.test(value.slice(KEY_PREFIX.length));
}
