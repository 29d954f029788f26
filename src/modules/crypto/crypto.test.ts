import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const ctx = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  return async (input: Record<string, unknown>): Promise<any> => a.run(input, ctx);
};

describe('crypto edge cases', () => {
  it('hashes base64 and hex input bytes', async () => {
    const hash = action('hash');
    const fromText = await hash({ text: 'hello', algorithm: 'sha1' });
    expect(await hash({ text: 'aGVsbG8=', algorithm: 'sha1', input_encoding: 'base64' })).toEqual(fromText);
    expect(await hash({ text: '68656c6c6f', algorithm: 'sha1', input_encoding: 'hex' })).toEqual(fromText);
    expect(fromText.hash).toBe('aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d');
    expect((await hash({ text: '', algorithm: 'sha512', encoding: 'base64url' })).hash).not.toContain('=');
  });

  it('refuses malformed hex and base64 with ActionInputError', async () => {
    await expect(action('hash')({ text: 'zz', input_encoding: 'hex' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('hash')({ text: 'abc', input_encoding: 'hex' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('base64_decode')({ base64: 'not base64!' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('base64_decode')({ base64: 'abcde' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('hmac')({ message: 'm', key: '%%%', key_encoding: 'base64' })).rejects.toBeInstanceOf(ActionInputError);
  });

  it('round-trips base64 and base64url, ignoring whitespace and missing padding', async () => {
    const text = 'Grüße, 世界! 🎉 ~~~???';
    for (const url_safe of [false, true]) {
      const { base64 } = await action('base64_encode')({ text, url_safe });
      expect((await action('base64_decode')({ base64 })).text).toBe(text);
    }
    expect((await action('base64_decode')({ base64: 'SGVs\nbG8' })).text).toBe('Hello');
    expect(await action('base64_encode')({ text: 'deadbeef', input_encoding: 'hex' })).toEqual({ base64: '3q2+7w==', bytes: 4 });
  });

  it('hmac_verify accepts base64 signatures and rejects wrong lengths without throwing', async () => {
    const { signature } = await action('hmac')({ message: 'payload', key: 'secret', encoding: 'base64' });
    expect(await action('hmac_verify')({ message: 'payload', key: 'secret', signature, encoding: 'base64' })).toMatchObject({
      valid: true,
    });
    expect(await action('hmac_verify')({ message: 'payload', key: 'secret', signature: 'abc' })).toMatchObject({ valid: false });
    const hex = (await action('hmac')({ message: 'payload', key: 'secret' })).signature as string;
    expect(await action('hmac_verify')({ message: 'payload', key: 'secret', signature: hex.toUpperCase() })).toMatchObject({ valid: true });
  });

  it('generates v4 and v7 UUIDs; v7 sort by time', async () => {
    const v4 = await action('uuid')({ count: 5 });
    expect(v4.uuids).toHaveLength(5);
    for (const u of v4.uuids) expect((await action('uuid_inspect')({ uuid: u })).version).toBe(4);
    const v7 = await action('uuid')({ version: 7, count: 20 });
    expect([...v7.uuids].sort()).toEqual(v7.uuids);
    const info = await action('uuid_inspect')({ uuid: v7.uuids[0] });
    expect(info.version).toBe(7);
    expect(Math.abs(Date.parse(info.timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it('uuid_from_name is stable and validates the namespace', async () => {
    const a = await action('uuid_from_name')({ name: 'https://example.com/' });
    expect(await action('uuid_from_name')({ name: 'https://example.com/' })).toEqual(a);
    await expect(action('uuid_from_name')({ name: 'x', namespace: 'nope' })).rejects.toBeInstanceOf(ActionInputError);
    const custom = await action('uuid_from_name')({ name: 'x', namespace: a.uuid });
    expect(custom.namespace).toBe(a.uuid);
  });

  it('random tokens use the alphabet, prefix and length', async () => {
    const { tokens } = await action('random_token')({ length: 40, alphabet: 'hex', prefix: 'sk_', count: 3 });
    expect(new Set(tokens).size).toBe(3);
    for (const t of tokens) expect(t).toMatch(/^sk_[0-9a-f]{40}$/);
    const custom = await action('random_token')({ length: 50, characters: 'ab' });
    expect(custom.tokens[0]).toMatch(/^[ab]{50}$/);
    expect(custom.entropy_bits).toBe(50);
    await expect(action('random_token')({ characters: 'aa' })).rejects.toBeInstanceOf(ActionInputError);
    const bytes = await action('random_bytes')({ length: 16, encoding: 'base64url' });
    expect(Buffer.from(bytes.value, 'base64url')).toHaveLength(16);
  });

  it('compare handles different lengths', async () => {
    expect(await action('compare')({ a: 'a', b: 'aaaa' })).toEqual({ equal: false });
    expect(await action('compare')({ a: '', b: '' })).toEqual({ equal: true });
  });

  it('password_hash output verifies with password_verify', async () => {
    const { hash } = await action('password_hash')({ password: 'pässwörd' });
    expect(await action('password_verify')({ password: 'pässwörd', hash })).toEqual({ valid: true });
    expect(await action('password_verify')({ password: 'passwort', hash })).toEqual({ valid: false });
    await expect(action('password_verify')({ password: 'x', hash: '$2b$10$abc' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(
      action('password_verify')({ password: 'x', hash: '$scrypt$ln=20,r=32,p=1$c2FsdA$c2FsdHNhbHRzYWx0c2FsdA' }),
    ).rejects.toBeInstanceOf(ActionInputError);
  });
});
