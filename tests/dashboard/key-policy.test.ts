import { describe, expect, it } from 'vitest';
import { fieldOfIssue, patchOf, policySummary, valuesOf } from '../../components/dashboard/keys/policy';

describe('keys page: a policy in short', () => {
  it('says "No limits" for no policy', () => {
    expect(policySummary(null)).toBe('No limits');
    expect(policySummary({})).toBe('No limits');
  });
  it('names each limit that is set, in words', () => {
    expect(policySummary({ modules: ['text', 'csv', 'json'], min_trust_tier: 'gold', spend_cap_usd: '5.00' })).toBe(
      '3 modules · gold · 5 USD/month',
    );
    expect(
      policySummary({
        actions: ['text.slugify'],
        requests_per_minute: 60,
        executions_per_month: 1000,
        spend_cap_usd: '12.50',
        ip_allow: ['203.0.113.0/24'],
      }),
    ).toBe('1 action · 60/min · 1,000 executions/month · 12.50 USD/month · 1 IP range');
  });
});

describe('keys page: the policy form', () => {
  const initial = valuesOf({ modules: ['text'], requests_per_minute: 60, expires_at: '2030-01-02T03:04:00.000Z' });

  it('shows a policy as text, the expiry in UTC', () => {
    expect(initial).toMatchObject({ modules: 'text', requests_per_minute: '60', expires_at: '2030-01-02T03:04', spend_cap_usd: '' });
  });
  it('sends only what changed: an emptied field as null, the rest parsed', () => {
    const { patch, errors } = patchOf(initial, {
      ...initial,
      modules: 'text\ncsv\ntext',
      requests_per_minute: '',
      spend_cap_usd: '12.50',
      ip_allow: '203.0.113.7, 198.51.100.0/24',
      expires_at: '2031-05-06T07:08',
      pins: 'text sha256:abc',
    });
    expect(errors).toEqual({});
    expect(patch).toEqual({
      modules: ['text', 'csv'],
      requests_per_minute: null,
      spend_cap_usd: '12.50',
      ip_allow: ['203.0.113.7', '198.51.100.0/24'],
      expires_at: '2031-05-06T07:08:00.000Z',
      pins: { text: 'sha256:abc' },
    });
    expect(patchOf(initial, initial).patch).toEqual({});
  });
  it('never sends a number it cannot read (NaN would reach the API as null and clear the field)', () => {
    const { patch, errors } = patchOf(initial, { ...initial, requests_per_minute: '6O', executions_per_month: '1.5' });
    expect(patch).toEqual({});
    expect(errors).toEqual({ requests_per_minute: 'Enter a whole number.', executions_per_month: 'Enter a whole number.' });
  });
  it("puts the API's issues under their fields", () => {
    expect(fieldOfIssue('ip_allow.1')).toBe('ip_allow');
    expect(fieldOfIssue('spend_cap_usd')).toBe('spend_cap_usd');
    expect(fieldOfIssue('key_id')).toBeUndefined();
  });
});
