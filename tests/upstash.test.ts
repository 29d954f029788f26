/**
 * The Upstash REST backend (UPSTASH_REDIS_REST_URL / _TOKEN). No Upstash service can exist on
 * this machine, so a small shim speaks Upstash's REST protocol (POST a JSON command array,
 * Bearer token, optional base64 response encoding) and forwards each command to the real Redis
 * of TEST_REDIS_URL. The shim is the only stand-in; the limiter and client code are the real ones.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, missing, startTestServer, TEST_REDIS_URL, type TestServer } from './harness';

const TOKEN = 'upstash-test-token';

function encode(value: unknown, base64: boolean): unknown {
  if (!base64) return value;
  if (typeof value === 'string') return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map((v) => encode(v, base64));
  return value;
}

async function startShim(redis: Redis): Promise<{ server: Server; url: string; commands: string[] }> {
  const commands: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Unauthorized' }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as string[] | string[][];
    const base64 = req.headers['upstash-encoding'] === 'base64';
    const run = async ([command, ...args]: string[]) => {
      commands.push(command!.toUpperCase());
      try {
        return { result: encode(await redis.call(command!, ...args), base64) };
      } catch (err) {
        return { error: String((err as Error).message) };
      }
    };
    // `/pipeline` (the client's auto-pipelining) carries an array of commands.
    if (req.url?.startsWith('/pipeline')) {
      const results = [];
      for (const cmd of body as string[][]) results.push(await run(cmd));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(results));
      return;
    }
    const result = await run(body as string[]);
    res.writeHead('error' in result ? 400 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, commands };
}

describe.skipIf(missing.redis !== undefined)('Upstash REST backend', () => {
  let redis: Redis;
  let shim: Awaited<ReturnType<typeof startShim>>;
  let s: TestServer;

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL!);
    shim = await startShim(redis);
    s = await startTestServer({
      redis: false,
      env: {
        UPSTASH_REDIS_REST_URL: shim.url,
        UPSTASH_REDIS_REST_TOKEN: TOKEN,
        REDIS_KEY_PREFIX: `upstash-${randomBytes(4).toString('hex')}:`,
      },
    });
  });
  afterAll(async () => {
    await s?.close();
    shim?.server.close();
    redis?.disconnect();
  });

  it('enforces the tenant pool through Upstash and reports redis ok in health', async () => {
    expect((await s.call('/api/v1/health')).body.checks.redis).toBe('ok');
    const t = await s.register();
    await s.setPlan(t.tenantId, 'free', 3);
    for (let i = 0; i < 3; i++) expect((await s.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    expectError(await s.call('/api/v1/keys', { key: t.apiKey }), 429, 'rate_limit_exceeded');
    expect(shim.commands.some((c) => c === 'EVAL' || c === 'EVALSHA')).toBe(true);
    // Under the server's REDIS_KEY_PREFIX, and nowhere else.
    expect(await redis.keys(`*amp:rl:*tenant:${t.tenantId}`)).toEqual([
      expect.stringMatching(new RegExp(`^${s.config.redisKeyPrefix}amp:rl:`)),
    ]);
  });
});
