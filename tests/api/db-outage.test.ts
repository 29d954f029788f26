/**
 * PostgreSQL dropping the service's connections under load (a restart, a failover): the process
 * survives (a checked-out client's error once crashed it), requests in the outage get 503
 * `unavailable` with Retry-After (not 500), and it serves again when the database is back, without
 * a restart. The connection goes through a TCP proxy this test controls.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestServer, type TestServer } from '../harness';
import { missing } from '../needs';

/** Forwards to PostgreSQL; `cut()` resets every open connection, `refuse` turns new ones away. */
async function startProxy(target: URL) {
  const sockets = new Set<Socket>();
  let refuse = false;
  const server: Server = createServer((client) => {
    if (refuse) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => sockets.forEach((s) => s.resetAndDestroy()),
    set refuse(v: boolean) {
      refuse = v;
    },
    /**
     * Stops listening and closes what is still open: after the service's pool has ended, its
     * sockets' closes may still be on their way through the proxy (server.close would wait for them).
     */
    close: () =>
      new Promise<void>((r) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => r());
      }),
  };
}

describe.skipIf(missing.postgres !== undefined)('PostgreSQL connections dropped under load', () => {
  let s: TestServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let dropDatabase: () => Promise<void>;
  beforeAll(async () => {
    const db = await createTestDatabase();
    dropDatabase = db.drop;
    const url = new URL(db.url);
    proxy = await startProxy(new URL(db.url));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    s = await startTestServer({ backend: 'postgres', databaseUrl: url.toString() });
  }, 120_000);
  // The server's close lets requests drain (up to 25 s) and pg-boss's jobs finish (up to 5 s).
  afterAll(async () => {
    await s?.close();
    await proxy?.close();
    await dropDatabase?.();
  }, 120_000);

  it('survives the cut, answers 503 while the database is away, and serves again when it is back', async () => {
    const { apiKey, tenantId } = await s.register();
    // Enough execution slots for the whole burst, however slowly the machine runs it (free has 5).
    await s.setPlan(tenantId, 'enterprise');
    const execute = () => s.call('/api/v1/modules/text/execute', { key: apiKey, body: { action: 'word_count', input: { text: 'a b c' } } });
    // Executions in flight (transactions holding checked-out clients) when every connection is reset.
    const burst = Array.from({ length: 40 }, (_, i) => new Promise((r) => setTimeout(r, i * 10)).then(execute));
    await new Promise((r) => setTimeout(r, 150));
    proxy.refuse = true;
    proxy.cut();
    const answers = await Promise.all(burst);
    // Each is answered: done before the cut, or refused in the error format; never a 500.
    for (const a of answers) expect([200, 503], a.text).toContain(a.status);
    const during = await s.call('/api/v1/me', { key: apiKey });
    if (during.status !== 200) {
      expect(during.status).toBe(503);
      expect(during.body.error).toBe('unavailable');
      expect(during.headers.get('retry-after')).toBe('5');
    }
    const health = await s.call('/api/v1/health');
    expect(health.status).toBe(503);

    proxy.refuse = false;
    let back = await execute();
    for (let i = 0; i < 40 && back.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      back = await execute();
    }
    expect(back.status, back.text).toBe(200);
    // No client is left checked out by a transaction whose BEGIN met the cut: each would hold one
    // of the pool's connections for good, and the server's close would wait for it forever.
    const pool = s.svc.database.pool!;
    await expect.poll(() => pool.totalCount - pool.idleCount, { timeout: 10_000 }).toBe(0);
  }, 120_000);
});
