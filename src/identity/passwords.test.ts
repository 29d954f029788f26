import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors';
import { assertStrongPassword, dummyHash, hashPassword, verifyPassword } from './passwords';

describe('passwords (scrypt)', () => {
  it('hashes with its parameters and a per-user salt, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('normalises Unicode (NFKC) so the same password typed differently matches', async () => {
    const hash = await hashPassword('caf\u00e9-password');
    expect(await verifyPassword('cafe\u0301-password', hash)).toBe(true);
  });

  it('never matches a malformed or unknown-format hash, and refuses absurd parameters', async () => {
    for (const stored of [
      '',
      'plain',
      'bcrypt$2b$10$abc',
      'scrypt$15$8$1$salt',
      'scrypt$25$8$1$c2FsdA$aGFzaA',
      'scrypt$x$8$1$c2FsdA$aGFzaA',
    ]) {
      expect(await verifyPassword('anything', stored)).toBe(false);
    }
  });

  it('the dummy hash (unknown emails) is a real hash nobody knows the password of', async () => {
    const dummy = await dummyHash();
    expect(dummy).toMatch(/^scrypt\$/);
    expect(await dummyHash()).toBe(dummy);
    expect(await verifyPassword('', dummy)).toBe(false);
  });

  it("refuses passwords shorter than 8 characters with GoTrue's weak_password fields", () => {
    let caught: unknown;
    try {
      assertStrongPassword('short');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('invalid_request');
    expect((caught as AppError).details).toMatchObject({ error_code: 'weak_password', weak_password: { reasons: ['length'] } });
    expect(() => assertStrongPassword(12345678)).toThrow(AppError);
    expect(() => assertStrongPassword('12345678')).not.toThrow();
  });
});
