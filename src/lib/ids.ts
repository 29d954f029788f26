import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling, no modulo bias). For secrets. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/**
 * For identifiers (never secrets): CSPRNG bytes drawn from a 4 KiB pool refilled by randomBytes,
 * as crypto.randomUUID does, so one call serves ~100 ids instead of one per id (a request id on
 * every request showed in profiles). Same uniform base62.
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

export function identifierBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    if (offset >= pool.length) {
      pool = randomBytes(POOL_SIZE);
      offset = 0;
    }
    const byte = pool[offset++]!;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix = 'key' | 'exe' | 'evt' | 'wh' | 'dlv' | 'inv' | 'wf' | 'run' | 'req' | 'pch' | 'crt';

/** Prefixed random identifier, e.g. `key_5hJ2...` (DESIGN.md §4). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${identifierBase62(20)}`;
}
