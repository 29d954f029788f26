/**
 * `verifyWebhook` / `amp.webhooks.verify` on Standard Webhooks deliveries, checked against the
 * `standardwebhooks` reference library (a devDependency) for the signature it computes.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { Amp, signWebhook, verifyWebhook, WebhookVerificationError } from '../../packages/sdk/src/index';

const secret = 'whsec_' + randomBytes(24).toString('base64');
const body = JSON.stringify({ id: 'evt_abc', event: 'execution.completed', timestamp: '2026-11-29T12:00:00Z', data: { ok: true } });
const now = Math.floor(Date.now() / 1000);

function headers(overrides: Record<string, string> = {}) {
  return {
    'webhook-id': 'evt_abc',
    'webhook-timestamp': String(now),
    'webhook-signature': signWebhook(secret, 'evt_abc', now, body),
    ...overrides,
  };
}

function failure(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e;
    throw e;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('SDK webhook verification', () => {
  it('accepts a valid delivery (string or bytes, plain object or Headers) and returns its body', () => {
    const amp = new Amp({ apiKey: 'k' }, { baseUrl: 'http://localhost' });
    expect(amp.webhooks.verify(body, headers(), secret)).toMatchObject({ id: 'evt_abc', event: 'execution.completed' });
    expect(verifyWebhook(Buffer.from(body), new Headers(headers()), secret).id).toBe('evt_abc');
    // The reference library signs the same way.
    const reference = new Webhook(secret).sign('evt_abc', new Date(now * 1000), body);
    expect(reference).toBe(headers()['webhook-signature']);
    // During a secret rotation two signatures come, the new one first.
    const other = 'whsec_' + randomBytes(24).toString('base64');
    const both = `${signWebhook(other, 'evt_abc', now, body)} ${signWebhook(secret, 'evt_abc', now, body)}`;
    expect(verifyWebhook(body, headers({ 'webhook-signature': both }), secret).id).toBe('evt_abc');
  });

  it('a chosen secret that is not whsec_ is its raw bytes', () => {
    const raw = 'my own secret value';
    const signature = new Webhook(Buffer.from(raw).toString('base64')).sign('evt_abc', new Date(now * 1000), body);
    expect(verifyWebhook(body, headers({ 'webhook-signature': signature }), raw).id).toBe('evt_abc');
  });

  it('refuses a tampered body, a wrong secret, a changed id and a missing header', () => {
    expect(failure(() => verifyWebhook(body.replace('true', 'false'), headers(), secret)).reason).toBe('invalid_signature');
    expect(failure(() => verifyWebhook(body, headers(), 'whsec_' + randomBytes(24).toString('base64'))).reason).toBe('invalid_signature');
    expect(failure(() => verifyWebhook(body, headers({ 'webhook-id': 'evt_other' }), secret)).reason).toBe('invalid_signature');
    expect(failure(() => verifyWebhook(body, headers({ 'webhook-signature': 'v1,short' }), secret)).reason).toBe('invalid_signature');
    expect(failure(() => verifyWebhook(body, { 'webhook-id': 'evt_abc', 'webhook-timestamp': String(now) }, secret)).reason).toBe(
      'missing_headers',
    );
  });

  it('refuses a delivery older or newer than the tolerance (5 minutes by default)', () => {
    const old = now - 301;
    const stale = { 'webhook-timestamp': String(old), 'webhook-signature': signWebhook(secret, 'evt_abc', old, body) };
    const at = { now: now * 1000 };
    const error = failure(() => verifyWebhook(body, headers(stale), secret, at));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.reason).toBe('timestamp_too_old');
    // A wider tolerance accepts it.
    expect(verifyWebhook(body, headers(stale), secret, { ...at, toleranceSeconds: 600 }).id).toBe('evt_abc');
    const future = now + 301;
    const early = { 'webhook-timestamp': String(future), 'webhook-signature': signWebhook(secret, 'evt_abc', future, body) };
    expect(failure(() => verifyWebhook(body, headers(early), secret, at)).reason).toBe('timestamp_too_new');
    expect(failure(() => verifyWebhook(body, headers({ 'webhook-timestamp': 'soon' }), secret)).reason).toBe('invalid_timestamp');
  });
});
