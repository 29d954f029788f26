/**
 * A shutdown (SIGTERM reaches server.ts, which calls this close) answers the requests in flight
 * before it closes their connections: an execution that ran is answered, not recorded and billed
 * behind a reset socket. New connections are refused meanwhile. Connections with nothing in
 * flight (idle keep-alive ones, and spares a client opened and never sent a request on) are closed
 * at once instead of holding the shutdown until its deadline.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness';

describe('graceful shutdown', () => {
  let s: TestServer;
  let slow: Server;
  let slowUrl: string;
  beforeAll(async () => {
    // Answers after 1.5 s: an execution still running when the shutdown begins.
    slow = createServer((_req, res) => setTimeout(() => res.end('{"late":true}'), 1_500));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`;
    s = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => {
    await s?.close();
    await new Promise<void>((r) => slow?.close(() => r()));
  });

  it('answers the executions in flight, then closes', async () => {
    const { apiKey } = await s.register();
    const fetches = Array.from({ length: 3 }, () =>
      fetch(`${s.url}/api/v1/modules/http/execute`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'fetch', input: { url: slowUrl } }),
      }),
    );
    // Once the requests are in (the upstream has them), shut down.
    await new Promise((r) => setTimeout(r, 500));
    const closed = s.close();
    const answers = await Promise.all(fetches);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const bodies = await Promise.all(answers.map((a) => a.json() as Promise<{ output: { body: string } }>));
    expect(bodies.map((b) => b.output.body)).toEqual(['{"late":true}', '{"late":true}', '{"late":true}']);
    await closed;
    await expect(fetch(`${s.url}/api/v1/health`)).rejects.toThrow();
  }, 60_000);

  it('closes at once the connections no request is in flight on, including one never used', async () => {
    const other = await startTestServer();
    const { port } = new URL(other.url);
    // A spare connection (as browsers and pools open ahead), and a keep-alive one after its answer.
    const spare = connect(Number(port), '127.0.0.1');
    await new Promise<void>((r) => spare.once('connect', () => r()));
    const spareClosed = new Promise<void>((r) => spare.once('close', () => r()));
    expect((await fetch(`${other.url}/api/v1/health`)).status).toBe(200);
    await other.close();
    await spareClosed;
    expect(spare.bytesRead).toBe(0);
    // The test's time is below the 25 s a shutdown waits for connections still busy: a spare that
    // held the shutdown until then fails it.
  }, 15_000);
});
