import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../services';
import { startReceiver, type Receiver } from '../../tests/receiver';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, webhookSigningKey } from '../lib/secrets';
import { deliveryHeaders, envelopeBody, signBody, standardSignature } from './envelope';
import { postToReceiver } from './send';

/** Only the configuration is read by postToReceiver; the rest of Services is not needed. */
const withConfig = (allowPrivate: boolean, timeoutMs = 2000) =>
  ({ config: { webhooks: { allowPrivate, timeoutMs, retryScheduleMs: [0] } } }) as unknown as Services;

describe('postToReceiver: the address is checked again at every attempt', () => {
  let r: Receiver;
  beforeAll(async () => {
    r = await startReceiver();
  });
  afterAll(async () => r?.close());

  it('refuses a loopback receiver without WEBHOOK_ALLOW_PRIVATE, before any socket opens', async () => {
    const https = r.url.replace('http:', 'https:');
    for (const url of [r.url, https, https.replace('127.0.0.1', 'localhost')]) {
      const outcome = await postToReceiver(withConfig(false), url, '{}', {});
      expect(outcome.success).toBe(false);
      expect(outcome.statusCode).toBeNull();
      expect(outcome.error).toMatch(/allowed/);
    }
    expect(r.connections).toBe(0);
  });

  it('delivers with the flag and keeps the first 1 KB of the answer', async () => {
    r.respond = () => ({ status: 202, body: 'z'.repeat(5000) });
    const outcome = await postToReceiver(withConfig(true), r.url, '{"a":1}', { 'content-type': 'application/json' });
    expect(outcome).toMatchObject({ success: true, statusCode: 202, error: null });
    expect(outcome.responseBody).toHaveLength(1024);
  });

  it('reuses the connection to a receiver (keep-alive, pinned to the checked address)', async () => {
    r.respond = () => ({ status: 200, body: 'ok' });
    const before = r.connections;
    for (let i = 0; i < 3; i++) {
      expect((await postToReceiver(withConfig(true), r.url, '{}', {})).success).toBe(true);
    }
    expect(r.connections - before).toBe(1);
  });

  it('a redirect is a failed attempt (not followed)', async () => {
    r.respond = () => ({ status: 307 });
    const outcome = await postToReceiver(withConfig(true), r.url, '{}', {});
    expect(outcome).toMatchObject({ success: false, statusCode: 307 });
  });
});

describe('envelope', () => {
  it('signs the exact bytes with lower-case hex HMAC-SHA256', () => {
    // Reference value: `printf '{"a":1}' | openssl dgst -sha256 -hmac secret`
    expect(signBody('secret', '{"a":1}')).toBe('aa9e2e3575f5d7098b6caccd790888c36d5fdb63342a73bada2d6a51747a8494');
  });

  it('replaces data over 64 KB with a summary and the absolute execution link', () => {
    const body = envelopeBody(
      {
        id: 'evt_1',
        event: 'workflow.completed',
        timestamp: '2026-01-01T00:00:00.000Z',
        data: { execution_id: 'exe_1', blob: 'x'.repeat(100_000) },
      },
      'https://amp.example.com',
    );
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(65_536);
    const parsed = JSON.parse(body);
    expect(parsed).toMatchObject({
      id: 'evt_1',
      event: 'workflow.completed',
      data: { truncated: true, full_result_url: 'https://amp.example.com/api/v1/executions/exe_1' },
    });
  });

  it('sends a recorded full_result_url path as an absolute URL', () => {
    const data = { execution_id: 'exe_2', truncated: true, full_result_url: '/api/v1/executions/exe_2' };
    const body = envelopeBody(
      { id: 'evt_2', event: 'execution.completed', timestamp: '2026-01-01T00:00:00.000Z', data },
      'https://amp.example.com',
    );
    expect(JSON.parse(body).data.full_result_url).toBe('https://amp.example.com/api/v1/executions/exe_2');
  });
});

describe('Standard Webhooks signature', () => {
  const body = '{"id":"evt_1","event":"webhook.test","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';

  it('generated secrets are whsec_ + standard base64 of 24 bytes, which the library loads', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(webhookSigningKey(secret)).toHaveLength(24);
    const headers = deliveryHeaders(secret, body, { eventId: 'evt_1', eventType: 'webhook.test', deliveryId: 'dlv_1', attempt: 1 });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    // The spec's header is unchanged: hex HMAC of the body with the secret string.
    expect(headers['x-webhook-signature']).toBe(signBody(secret, body));
  });

  it('a caller-chosen secret is the raw key; the signature covers id and timestamp', () => {
    const headers = deliveryHeaders('my-own-signing-secret-1', body, {
      eventId: 'evt_1',
      eventType: 'webhook.test',
      deliveryId: 'dlv_1',
      attempt: 1,
    });
    const wh = new Webhook('my-own-signing-secret-1', { format: 'raw' });
    expect(wh.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => wh.verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow();
  });

  it('legacy base64url secrets decode from base64url, so re-encoded they load in the library', () => {
    const bytes = Buffer.concat([Buffer.from([0xfb, 0xff, 0xfe]), randomBytes(29)]);
    const legacy = `whsec_${bytes.toString('base64url')}`;
    expect(legacy).toMatch(/^whsec_-__-/);
    const key = webhookSigningKey(legacy);
    expect(key).toEqual(bytes);
    const headers = deliveryHeaders(legacy, body, { eventId: 'evt_1', eventType: 'webhook.test', deliveryId: 'dlv_1', attempt: 1 });
    expect(new Webhook(`whsec_${key.toString('base64')}`).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('matches a reference value (id.timestamp.body, base64 HMAC-SHA256)', () => {
    // Key: the bytes of 'secret'; `printf 'msg_1.1700000000.{}' | openssl dgst -sha256 -hmac secret -binary | base64`
    const expected = 'v1,A5oIrJxXPB/PkULSoVu0e4khvPiqpF9vljmhkSKg0FI=';
    expect(standardSignature('secret', 'msg_1', '1700000000', '{}')).toBe(expected);
    expect(standardSignature(`whsec_${Buffer.from('secret').toString('base64')}`, 'msg_1', '1700000000', '{}')).toBe(expected);
    expect(webhookSigningKey('whsec_not base64!')).toEqual(Buffer.from('whsec_not base64!'));
  });
});
