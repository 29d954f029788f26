/**
 * The execute request's slot taken in its admission round trip (src/server/trpc.ts `claimsSlot`,
 * RedisLimiter.limitIfCurrent with a SlotRequest): with Redis and a cached key, the concurrency
 * limit still holds exactly across two instances, a refusal still comes where it did (after the
 * module lookup), requests that end before executing give their slot back, and the execution
 * sends no slot script of its own.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { missing } from '../needs';
import { expectError, startTestServer, type TestServer } from '../harness';

describe.skipIf(missing.postgres !== undefined || missing.redis !== undefined)(
  'execution slot claimed with the request count (PostgreSQL + Redis, two instances)',
  () => {
    let a: TestServer;
    let b: TestServer;
    let slow: Server;
    let slowUrl: string;
    const held: ServerResponse[] = [];
    const answerAll = () => {
      for (const res of held.splice(0)) res.end('{"ok":true}');
    };
    /** Slot scripts of their own (the standalone acquire) sent by each instance. */
    const standaloneAcquires = { a: 0, b: 0 };

    beforeAll(async () => {
      slow = createServer((_req, res) => void held.push(res));
      await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
      slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
      a = await startTestServer({ backend: 'postgres', env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
      b = await startTestServer({ backend: 'postgres', databaseUrl: a.config.databaseUrl, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
      for (const [name, s] of [['a', a] as const, ['b', b] as const]) {
        const redis = s.svc.redis!;
        const evalScript = redis.eval.bind(redis);
        // The standalone acquire is the only slot script that does not also count the request (HGETALL).
        redis.eval = (script, keys, args) => {
          if (script.includes("'ZADD'") && !script.includes('HGETALL')) standaloneAcquires[name]++;
          return evalScript(script, keys, args);
        };
      }
    });
    afterAll(async () => {
      answerAll();
      await b?.close();
      await a?.close();
      slow?.close();
    });

    it('holds the free limit of 5 across both instances, refuses the 6th on each, and every slot comes back', async () => {
      const t = await a.register();
      const fetchOn = (s: TestServer) =>
        s.call('/api/v1/modules/http/execute', { key: t.apiKey, body: { action: 'fetch', input: { url: slowUrl } } });
      // Install the module and load the key into both instances' caches.
      const first = fetchOn(a);
      await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 30_000, interval: 20 });
      answerAll();
      expect((await first).status).toBe(200);
      expect((await b.call('/api/v1/me', { key: t.apiKey })).status).toBe(200);
      standaloneAcquires.a = standaloneAcquires.b = 0;

      const five = [a, b, a, b, a].map(fetchOn);
      await vi.waitFor(() => expect(held).toHaveLength(5), { timeout: 30_000, interval: 20 });
      for (const s of [a, b]) {
        const refused = await fetchOn(s);
        expectError(refused, 429, 'concurrency_limit_exceeded');
        expect(refused.headers.get('retry-after')).toBe('1');
      }
      // A claim refused in the admission round trip is asked again where the execution takes its slot (one standalone acquire each).
      expect(standaloneAcquires).toEqual({ a: 1, b: 1 });
      standaloneAcquires.a = standaloneAcquires.b = 0;
      // Errors that come before the slot is used are unchanged by the claim: 404 and 400, not 429.
      expectError(
        await a.call('/api/v1/modules/no-such-module/execute', { key: t.apiKey, body: { action: 'x', input: {} } }),
        404,
        'not_found',
      );
      expectError(
        await b.call('/api/v1/modules/http/execute', { key: t.apiKey, body: { action: 'fetch', input: {}, extra: 1 } }),
        400,
        'invalid_request',
      );
      expect(await a.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(5);
      answerAll();
      expect((await Promise.all(five)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      // Each instance wrote its releases before its replies (not awaited; the other instance's may land a moment later).
      await vi.waitFor(async () => expect(await a.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0), { timeout: 5_000, interval: 20 });

      // With room, requests that end before executing (404, 400) give their claimed slot back.
      const ended = await Promise.all([
        a.call('/api/v1/modules/no-such-module/execute', { key: t.apiKey, body: { action: 'x', input: {} } }),
        b.call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'nosuchaction', input: {} } }),
        a.call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'uuid', input: { count: 'many' } } }),
      ]);
      expect(ended.map((r) => r.status)).toEqual([404, 404, 422]);
      await vi.waitFor(async () => expect(await b.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0), { timeout: 5_000, interval: 20 });
      // Five run at once again, and the executions of cached keys sent no slot script of their own.
      const again = [b, a, b, a, b].map(fetchOn);
      await vi.waitFor(() => expect(held).toHaveLength(5), { timeout: 30_000, interval: 20 });
      answerAll();
      expect((await Promise.all(again)).every((r) => r.status === 200)).toBe(true);
      await vi.waitFor(async () => expect(await a.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0), { timeout: 5_000, interval: 20 });
      expect(standaloneAcquires).toEqual({ a: 0, b: 0 });
    }, 90_000);

    it('a request refused by the rate limit takes no slot', async () => {
      const t = await a.register();
      await a.setPlan(t.tenantId, 'free', 3);
      const uuid = () => a.call('/api/v1/modules/crypto/execute', { key: t.apiKey, body: { action: 'uuid', input: {} } });
      for (let i = 0; i < 3; i++) expect((await uuid()).status).toBe(200);
      expectError(await uuid(), 429, 'rate_limit_exceeded');
      expect(await a.svc.slots.inFlight(`tenant:${t.tenantId}`)).toBe(0);
    }, 60_000);
  },
);
