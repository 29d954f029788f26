/**
 * The operator's test send (`admin.testWebhook`, the Admin page's check before re-enabling a
 * tenant's subscription): tRPC only, operators only, the tenant's own test on any tenant's
 * subscription, also a disabled one; recorded in that tenant's history as a test.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, backends, startTestServer, type TestServer } from '../harness';

backends.describe('admin webhook test send (%s)', (backend) => {
  let s: TestServer;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: http.IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      received.push(req.headers);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => {
    await s?.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const admin = { 'x-admin-token': ADMIN_TOKEN };
  const testSend = (id: string, opts: { headers?: Record<string, string>; key?: string } = {}) =>
    s.call('/api/trpc/admin.testWebhook', { ...opts, body: { id } });

  it("sends one signed test to any tenant's receiver for an operator; refuses a tenant; has no REST route", async () => {
    const t = await s.register({ agent_name: 'Test Send Co' });
    await s.setPlan(t.tenantId, 'pro');
    const sub = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiverUrl, events: ['execution.completed'] } });
    expect(sub.status).toBe(201);
    const id = String(sub.body.id);

    const res = await testSend(id, { headers: admin });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(received.at(-1)?.['x-webhook-test']).toBe('1');
    const detail = await s.call(`/api/v1/webhooks/${id}`, { key: t.apiKey });
    const tests = (detail.body.deliveries as { kind: string; id: string }[]).filter((d) => d.kind === 'test');
    expect(tests.map((d) => d.id)).toEqual([res.body.result.data.delivery_id]);
    // A test never counts toward the subscription's failures or statistics.
    expect(detail.body.consecutive_failures).toBe(0);

    // The tenant's own key is refused the operators' procedure; an unknown id is 404.
    expect([401, 403]).toContain((await testSend(id, { key: t.apiKey })).status);
    expect((await testSend('wh_doesnotexist0000000000', { headers: admin })).status).toBe(404);
    expect((await s.call(`/api/v1/admin/webhooks/${id}/test`, { headers: admin, body: {} })).status).toBe(404);
  });
});
