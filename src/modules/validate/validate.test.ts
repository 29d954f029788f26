import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('validate edge cases', () => {
  it('email: display names, reasons', () => {
    expect(run('email', { email: 'Ann <ann@example.com>', allow_display_name: true }).normalized).toBe('ann@example.com');
    expect(run('email', { email: 'Ann <ann@example.com>' }).valid).toBe(false);
    expect(run('email', { email: 'no-at-sign' }).reason).toBe('missing @');
    expect(run('email', { email: '@example.com' }).reason).toBe('missing the part before @');
  });

  it('url: missing protocol, allowed protocols and localhost', () => {
    expect(run('url', { url: 'example.com/x' })).toEqual({ valid: false, reason: 'missing protocol (e.g. https://)' });
    expect(run('url', { url: 'example.com/x', require_protocol: false }).normalized).toBe('http://example.com/x');
    expect(run('url', { url: 'http://localhost:3000' }).valid).toBe(false);
    expect(run('url', { url: 'http://localhost:3000', require_tld: false }).port).toBe(3000);
    expect(run('url', { url: 'javascript:alert(1)' }).valid).toBe(false);
  });

  it('phone: unknown country, wrong length, fixed line', () => {
    expect(run('phone', { phone: '123', default_country: 'ZZ' }).reason).toMatch(/unknown default_country/);
    const short = run('phone', { phone: '+1 415 555' });
    expect(short.valid).toBe(false);
    expect(run('phone', { phone: '020 7946 0958', default_country: 'gb' })).toMatchObject({
      valid: true,
      country: 'GB',
      type: 'fixed_line',
      e164: '+442079460958',
    });
  });

  it('iban: unknown country, wrong length, garbage', () => {
    expect(run('iban', { iban: 'XX00 1234' })).toMatchObject({ valid: false, country: null, sepa: null });
    expect(run('iban', { iban: 'DE89 3704 0044 0532 0130' }).errors).toContain('wrong length for the country');
    expect(run('iban', { iban: '' })).toMatchObject({ valid: false, electronic: null, formatted: null });
  });

  it('credit_card never echoes the number and rejects letters', () => {
    expect(run('credit_card', { number: '5555 5555 5555 4444' })).toEqual({
      valid: true,
      luhn_valid: true,
      brand: 'mastercard',
      last4: '4444',
      length: 16,
    });
    expect(run('credit_card', { number: 'abcd' })).toEqual({ valid: false, luhn_valid: false, brand: null, last4: null, length: 4 });
  });

  it('uuid: nil, braces, urn and invalid', () => {
    expect(run('uuid', { uuid: '00000000-0000-0000-0000-000000000000' })).toEqual({
      valid: true,
      version: 0,
      variant: null,
      normalized: '00000000-0000-0000-0000-000000000000',
    });
    expect(run('uuid', { uuid: '{550E8400-E29B-41D4-A716-446655440000}' }).valid).toBe(true);
    expect(run('uuid', { uuid: 'urn:uuid:550e8400-e29b-41d4-a716-446655440000' }).version).toBe(4);
    expect(run('uuid', { uuid: 'not-a-uuid' }).valid).toBe(false);
  });

  it('ip: loopback, IPv4-mapped IPv6, short forms rejected', () => {
    expect(run('ip', { ip: '127.0.0.1' }).range).toBe('loopback');
    expect(run('ip', { ip: '::ffff:10.0.0.1' })).toMatchObject({ valid: true, version: 6, range: 'ipv4Mapped', public: false });
    expect(run('ip', { ip: '127.1' }).valid).toBe(false);
    expect(run('ip', { ip: '10.0.0.0/33' }).valid).toBe(false);
  });
});

describe('validate url hosts', () => {
  it('allow_ip false rejects IP hosts', () => {
    expect(run('url', { url: 'http://93.184.216.34/x' }).valid).toBe(true);
    expect(run('url', { url: 'http://93.184.216.34/x', allow_ip: false })).toEqual({
      valid: false,
      reason: 'IP-address hosts are not allowed',
    });
  });
});
