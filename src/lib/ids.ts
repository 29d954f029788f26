import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn from a 4 KiB pool refilled by randomBytes (as crypto.randomUUID does): one
 * call per ~100 ids instead of one per id (a request id on every request showed in profiles).
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function randomByte(): number {
  if (offset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++]!;
}

/** Uniform random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix = 'key' | 'exe' | 'evt' | 'wh' | 'dlv' | 'inv' | 'wf' | 'run' | 'req' | 'pch' | 'crt';

/** Prefixed random identifier, e.g. `key_5hJ2...` (DESIGN.md §4). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
