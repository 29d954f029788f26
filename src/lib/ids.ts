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

export type IdPrefix = 'key' | 'exe' | 'evt' | 'wh' | 'dlv' | 'inv' | 'wf' | 'run' | 'req' | 'pch' | 'crt' | 'aud' | 'invite';

/** Prefixed random identifier, e.g. `key_5hJ2...` (docs/decisions.md, Wire conventions). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${identifierBase62(20)}`;
}

/** Characters of a time-ordered id that carry its creation time: 62^8 ms is ~6,900 years (62^7 would wrap in 2081). */
const TIME_CHARS = 8;

/**
 * A prefixed identifier of the same form as `newId` (20 base62 characters) whose first 8 carry
 * the creation time in milliseconds and the other 12 are random (71 bits), as ULID and KSUID do:
 * for the rows written by the thousand (executions, events, webhook deliveries), whose
 * primary-key indexes then grow at their right edge instead of at random leaves
 * (docs/performance.md, Group commit). Still opaque and unguessable; ids of
 * one millisecond do not sort among themselves.
 */
export function newTimeOrderedId(prefix: IdPrefix): string {
  let time = '';
  for (let ms = Date.now(), i = 0; i < TIME_CHARS; i++, ms = Math.floor(ms / 62)) time = BASE62[ms % 62]! + time;
  return `${prefix}_${time}${identifierBase62(20 - TIME_CHARS)}`;
}
