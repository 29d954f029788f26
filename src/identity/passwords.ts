import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { PASSWORD_LENGTH } from '../contract/limits';
import { AppError } from '../lib/errors';

/**
 * Passwords under scrypt (memory-hard): N = 2^15, r = 8, p = 1 (32 MiB per hash), a 16-byte
 * salt per user, a 32-byte key. The stored string carries its parameters, so they can be raised
 * later without breaking older hashes: `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;

export const MIN_PASSWORD_LENGTH = PASSWORD_LENGTH.min;
export const MAX_PASSWORD_LENGTH = PASSWORD_LENGTH.max;

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const paramsOf = (logN: number, r: number, p: number): ScryptOptions => ({ N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_BYTES, paramsOf(LOG_N, R, P));
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time comparison against a stored hash; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  const actual = await scrypt(password, salt, expected.length, paramsOf(logN, r, p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of nothing anyone knows: sign-in with an unknown email verifies against it (same time). */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  return (dummy ??= hashPassword(randomBytes(18).toString('base64url')));
}

/** GoTrue's `weak_password` refusal (GoTrue answers 422; here 400 invalid_request carrying GoTrue's fields). */
export function assertStrongPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) {
    const msg = `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`;
    throw new AppError('invalid_request', msg, {
      error_code: 'weak_password',
      weak_password: { reasons: ['length'], message: msg },
      issues: [{ path: 'password', message: msg }],
    });
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError('invalid_request', `Password should be at most ${MAX_PASSWORD_LENGTH} characters.`, {
      error_code: 'validation_failed',
      issues: [{ path: 'password', message: 'Too long' }],
    });
  }
}
