/**
 * U+0000 cannot be stored in PostgreSQL text or jsonb. A client cannot send it (400 with the
 * path, after authentication, like invalid JSON); a module output that contains it is answered
 * as is and stored (execution record, event, webhook) with U+FFFD instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver } from '../receiver';

describe.each(backends())('NUL characters (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => s?.close());

  it('refuses U+0000 in a body, a nested key, or a query parameter with 400 and its path', async () => {
    const t = await s.register();
    const body = expectError(
      await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'change_case', input: { text: 'a\u0000b', to: 'upper' } } }),
      400,
      'invalid_request',
    );
    expect(body.issues).toEqual([{ path: 'input', message: expect.stringMatching(/NUL.*at input\.text/) }]);
    expectError(await s.call('/api/v1/modules/text/execute', { key: t.apiKey, body: { action: 'change_case', input: { text: 'lone \ud800', to: 'upper' } } }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/memory', { key: t.apiKey, body: { agent_id: 'a', key: 'k', value: { 'x\u0000': 1 } } }), 400, 'invalid_request');
    expectError(await s.call('/api/v1/catalog/search?q=a%00b', { key: t.apiKey }), 400, 'invalid_request');
    // Authentication still comes first.
    expectError(await s.call('/api/v1/modules/text/execute', { body: { action: 'change_case', input: { text: '\u0000', to: 'upper' } } }), 401, 'unauthorized');
  });

  it('the tRPC transport refuses it too (400, before input validation)', async () => {
    const t = await s.register();
    const res = await s.call('/api/trpc/memory.upsert', { key: t.apiKey, body: { agent_id: 'a', key: 'k\u0000', value: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error.data).toMatchObject({ httpStatus: 400, app: { error: 'invalid_request', issues: [{ path: 'key' }] } });
  });

  it('a module output with U+0000 is answered as is and stored, evented and delivered with U+FFFD', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    const receiver = await startReceiver();
    try {
      await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
      const res = await s.call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'base64_decode', input: { base64: 'YQBi' } } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.output.text).toBe('a\u0000b');
      const record = await s.call(`/api/v1/executions/${res.body.execution_id}`, { key: t.apiKey });
      expect(record.body.output.text).toBe('a\uFFFDb');
      const [got] = await receiver.waitFor(1);
      expect(got!.body.data.output.text).toBe('a\uFFFDb');
    } finally {
      await receiver.close();
    }
  });
});
