import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from '../harness';

/** Execution slots over HTTP: a free tenant holds 5 in-flight executions; the 6th is refused. */
describe('concurrency limit on execute', () => {
  let s: TestServer;
  let slow: Server;
  let slowUrl: string;

  beforeAll(async () => {
    // A slow upstream on loopback for the built-in http.fetch action (WEBHOOK_ALLOW_PRIVATE=1).
    slow = createServer((_req, res) => setTimeout(() => res.end('{"ok":true}'), 800));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
    s = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => {
    await s?.close();
    slow?.close();
  });

  it('refuses the 6th concurrent execution with 429 concurrency_limit_exceeded and releases every slot', async () => {
    const t = await s.register();
    const fetchCall = () => s.call('/api/v1/modules/http/execute', { key: t.apiKey, body: { action: 'fetch', input: { url: slowUrl } } });
    await fetchCall(); // installs the module
    const results = await Promise.all(Array.from({ length: 6 }, fetchCall));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = results.find((r) => r.status === 429)!;
    expectError(refused, 429, 'concurrency_limit_exceeded');
    expect(refused.headers.get('retry-after')).toBe('1');
    // Every slot came back: five more run at once again.
    const again = await Promise.all(Array.from({ length: 5 }, fetchCall));
    expect(again.every((r) => r.status === 200)).toBe(true);
    expect(await s.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0);
  }, 60_000);
});
