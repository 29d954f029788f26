/**
 * Redis outage: the service keeps answering with a local limiter (each instance enforces the
 * whole limit on its own while Redis is away), health reports `redis: "degraded"`, and the shared
 * limiter resumes when Redis is back. The test runs its own redis-server on its own port, so it
 * can stop and restart it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from './harness';
import { freePort } from './ports';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
// It runs its own redis-server, so it needs the binary rather than TEST_REDIS_URL.
if (!hasRedisServer) console.log('[tests] Redis outage test reported as skipped: redis-server is not installed.');

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 50; i++) {
    if (
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .trim() === 'PONG'
    )
      return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('redis-server did not start');
}

async function stopRedis(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not reached in time');
}

describe.skipIf(!hasRedisServer)('Redis outage', () => {
  let port: number;
  let redis: ChildProcess;
  let s: TestServer;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    s = await startTestServer({ redis: false, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await s?.close();
    if (redis && redis.exitCode === null) await stopRedis(redis);
  });

  const health = async () => (await s.call('/api/v1/health')).body;

  it('degrades to a local limiter while Redis is down, and resumes the shared one after', async () => {
    expect((await health()).checks.redis).toBe('ok');
    const t = await s.register();
    await s.setPlan(t.tenantId, 'free', 5);
    for (let i = 0; i < 2; i++) expect((await s.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);

    await stopRedis(redis);
    await waitFor(async () => (await health()).checks.redis === 'degraded');
    expect((await health()).status).toBe('degraded');

    // Still served, and still limited: the local limiter enforces the tenant's limit alone.
    for (let i = 0; i < 5; i++) expect((await s.call('/api/v1/keys', { key: t.apiKey })).status).toBe(200);
    expectError(await s.call('/api/v1/keys', { key: t.apiKey }), 429, 'rate_limit_exceeded');

    redis = await startRedis(port);
    await waitFor(async () => (await health()).checks.redis === 'ok');
    // Back on Redis: the shared pool (a fresh server, so empty) admits again, counted in Redis.
    const res = await s.call('/api/v1/keys', { key: t.apiKey });
    expect(res.status).toBe(200);
    const keys = spawnSync('redis-cli', ['-p', String(port), '--scan', '--pattern', `*amp:rl:*tenant:${t.tenantId}`])
      .stdout.toString()
      .trim();
    expect(keys).not.toBe('');
  });
});
