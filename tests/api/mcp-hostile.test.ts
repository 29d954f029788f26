import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BODY_TIMEOUT_MS } from '../../src/server/http/request';
import { backends, startTestServer, type TestServer } from '../harness';

/**
 * Hostile clients at POST /api/mcp: a body that never arrives in full (a Content-Length larger
 * than what is sent, a chunked body without its end) is answered 408 within BODY_TIMEOUT_MS and
 * its connection closed, under concurrent load as alone; it never waits for Node's request
 * timeout, minutes later.
 */
const FORM = 'jsonrpc=2.0&method=tools%2Flist&id=1';

/** Sends `head` and `body` on a fresh connection (without half-closing, as a client waiting for its answer does) and returns all the server sends until it closes. */
function exchange(port: number, head: string, body: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head + body));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), headers: text.slice(0, split), body: text.slice(split + 4) });
    });
  });
}

backends.describe('MCP with hostile bodies (%s)', (backend) => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer({ backend });
    const t = await s.register();
    await s.setPlan(t.tenantId, 'business');
    key = t.apiKey;
  }, 120_000);
  afterAll(async () => s?.close());

  const head = (length: string, contentType = 'application/x-www-form-urlencoded') =>
    `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nContent-Type: ${contentType}\r\n${length}\r\n`;
  const expectTimedOut = (res: { status: number; headers: string; body: string }) => {
    expect(res.status, res.headers + res.body).toBe(408);
    expect(res.headers).toMatch(/^connection: close$/im);
    expect(JSON.parse(res.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/did not arrive within/), data: { request_id: expect.any(String) } },
    });
  };

  it(
    'answers a form body shorter than its Content-Length with 408 and closes, while concurrent requests are answered as usual',
    async () => {
      const short = exchange(s.port, head(`Content-Length: ${FORM.length + 100}\r\n`), FORM);
      const chunked = exchange(s.port, head('Transfer-Encoding: chunked\r\n'), `${FORM.length.toString(16)}\r\n${FORM}\r\n`);
      // Load around them: complete form bodies (a 400 parse error each), and complete JSON-RPC calls.
      const load = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 2
            ? exchange(s.port, head(`Content-Length: ${FORM.length}\r\nConnection: close\r\n`), FORM)
            : exchange(
                s.port,
                head(`Content-Length: ${'{"jsonrpc":"2.0","id":1,"method":"ping"}'.length}\r\nConnection: close\r\n`, 'application/json'),
                '{"jsonrpc":"2.0","id":1,"method":"ping"}',
              ),
        ),
      );
      expect(load.filter((r, i) => i % 2).map((r) => r.status)).toEqual(Array(20).fill(400));
      expect(load.filter((r, i) => i % 2 === 0).map((r) => r.status)).toEqual(Array(20).fill(200));
      expectTimedOut(await short);
      expectTimedOut(await chunked);
    },
    BODY_TIMEOUT_MS + 60_000,
  );
});
