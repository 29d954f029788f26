import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../services';
import { startReceiver, type Receiver } from '../../tests/receiver';
import { envelopeBody, signBody } from './envelope';
import { postToReceiver } from './send';

/** Only the configuration is read by postToReceiver; the rest of Services is not needed. */
const withConfig = (allowPrivate: boolean, timeoutMs = 2000) => ({ config: { webhooks: { allowPrivate, timeoutMs, retryScheduleMs: [0] } } }) as unknown as Services;

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

  it('replaces data over 64 KB with a summary and the execution link', () => {
    const body = envelopeBody({ id: 'evt_1', event: 'workflow.completed', timestamp: '2026-01-01T00:00:00.000Z', data: { execution_id: 'exe_1', blob: 'x'.repeat(100_000) } });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(65_536);
    const parsed = JSON.parse(body);
    expect(parsed).toMatchObject({ id: 'evt_1', event: 'workflow.completed', data: { truncated: true, full_result_url: '/api/v1/executions/exe_1' } });
  });
});
