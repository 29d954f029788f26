/**
 * A benchmark target in its own process, so the load generator does not share its event loop:
 *   tsx bench/target.ts bare <body-file> [<headers-file>]
 *                                          a bare node:http handler answering the given bytes, with
 *                                          the headers in the JSON file (the service's, so that both
 *                                          answer the same response) when given
 *   tsx bench/target.ts receiver           a bare node:http webhook receiver that records receipts
 *   tsx bench/target.ts service            the real service (env decides embedded / PostgreSQL+Redis)
 *   tsx bench/target.ts durable <body-file> [<headers-file>] the durable ceiling: per request one Redis round
 *                                          trip and one `executions` row, rows of concurrent requests
 *                                          group-committed in one INSERT every ~2 ms, each reply (the
 *                                          given bytes) after its row's commit. DURABLE_DATABASE_URL,
 *                                          DURABLE_REDIS_URL, DURABLE_TENANT_ID (an existing tenant)
 *   tsx bench/target.ts metered <body-file> [<headers-file>] the ceiling of an authenticated read: per request the
 *                                          service's own limiter script reads the tenant's pool (one
 *                                          Redis round trip, the X-RateLimit-* headers' source), then
 *                                          the given bytes. METERED_REDIS_URL
 * Prints `READY <port>` when listening.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

const [mode, bodyFile, headersFile] = process.argv.slice(2);
/** Headers every answer of a baseline carries besides its own: the service's (bench/http.ts), so that the bytes match. */
const extraHeaders: Record<string, string> = headersFile ? (JSON.parse(readFileSync(headersFile, 'utf8')) as Record<string, string>) : {};

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
const nowMs = () => performance.timeOrigin + performance.now();

if (mode === 'bare') {
  const body = readFileSync(bodyFile!);
  const server = createServer((_req, res) => {
    res.writeHead(200, { ...extraHeaders, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
} else if (mode === 'receiver') {
  startReceiver();
} else if (mode === 'durable') {
  await startDurable(readFileSync(bodyFile!));
} else if (mode === 'metered') {
  await startMetered(readFileSync(bodyFile!));
} else {
  const { startServer } = await import('../src/server/http/server');
  const running = await startServer({ env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent' } });
  // Stopped as server.ts is (graceful close, then exit), so that e.g. `--cpu-prof` writes its profile.
  process.once('SIGTERM', () => void running.close().finally(() => process.exit(0)));
  console.log(`READY ${running.port}`);
}

/**
 * POST (any path): a webhook delivery, answered 200 at once. For first attempts
 * (`x-webhook-attempt: 1`) it keeps the receipt time and the delay from the envelope's
 * `timestamp` (when the event was recorded; same machine clock). Repeated `x-webhook-id`s count
 * as duplicates. GET /stats answers what was recorded (`?summary` without the arrays);
 * POST /reset forgets it.
 */
function startReceiver() {
  let state = fresh();
  function fresh() {
    return {
      posts: 0,
      firstAttempts: 0,
      retries: 0,
      duplicates: 0,
      badBodies: 0,
      seen: new Set<string>(),
      at: [] as number[],
      delay: [] as number[],
      connections: 0,
      openConnections: 0,
      peakConnections: 0,
      inFlight: 0,
      peakInFlight: 0,
      sample: null as null | { headers: IncomingHttpHeaders; body: string },
    };
  }
  const ok = Buffer.from('{"received":true}');
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/stats')) {
      const { seen: _seen, at, delay, ...summary } = state;
      const body = JSON.stringify(req.url.includes('summary') ? summary : { ...summary, at, delay });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    if (req.method === 'POST' && req.url === '/reset') {
      const open = state.openConnections;
      state = fresh();
      // Connections kept alive across the reset are open: the peak starts from them.
      state.openConnections = open;
      state.peakConnections = open;
      res.writeHead(204).end();
      req.resume();
      return;
    }
    const s = state;
    s.inFlight++;
    s.peakInFlight = Math.max(s.peakInFlight, s.inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = nowMs();
      s.posts++;
      const id = String(req.headers['x-webhook-id'] ?? '');
      if (s.seen.has(id)) s.duplicates++;
      else s.seen.add(id);
      if (req.headers['x-webhook-attempt'] === '1') {
        s.firstAttempts++;
        const body = Buffer.concat(chunks).toString('utf8');
        try {
          const ts = Date.parse((JSON.parse(body) as { timestamp: string }).timestamp);
          s.at.push(at);
          s.delay.push(at - ts);
        } catch {
          s.badBodies++;
        }
        if (!s.sample) s.sample = { headers: req.headers, body };
      } else {
        s.retries++;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': ok.length });
      res.end(ok);
      s.inFlight--;
    });
  });
  server.on('connection', (socket) => {
    state.connections++;
    state.openConnections++;
    state.peakConnections = Math.max(state.peakConnections, state.openConnections);
    socket.once('close', () => state.openConnections--);
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
}

/**
 * The minimal durable server the service is measured against: node:http, one Redis round
 * trip (INCR) and one row per request, the rows of concurrent requests written by one INSERT (a
 * named statement) every ~2 ms, and each reply sent only after its row's commit.
 */
async function startDurable(body: Buffer) {
  const { default: pg } = await import('pg');
  const { Redis } = await import('ioredis');
  const { randomUUID } = await import('node:crypto');
  const pool = new pg.Pool({ connectionString: process.env.DURABLE_DATABASE_URL, max: 4 });
  const redis = new Redis(process.env.DURABLE_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const tenantId = process.env.DURABLE_TENANT_ID!;
  const INSERT = {
    name: 'durable_insert',
    text: `insert into executions (id, tenant_id, module, action, status, request_id, input_bytes, output_bytes, latency_ms, output, source, finished_at)
      select e.id, $1::uuid, 'crypto', 'uuid', 'success', e.id, 2, 50, 0, '{"uuid":"x"}'::jsonb, 'api', now()
      from unnest($2::text[]) as e(id)`,
  };
  let queued: { id: string; done: (err?: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    timer = undefined;
    const batch = queued;
    queued = [];
    try {
      await pool.query({ ...INSERT, values: [tenantId, batch.map((r) => r.id)] });
      for (const r of batch) r.done();
    } catch (err) {
      for (const r of batch) r.done(err);
    }
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      try {
        await redis.incr(`amp:bench:durable:${tenantId}`);
        await new Promise<void>((resolve, reject) => {
          queued.push({ id: `bench_${randomUUID()}`, done: (err) => (err ? reject(err) : resolve()) });
          timer ??= setTimeout(() => void flush(), 2);
        });
        res.writeHead(200, { ...extraHeaders, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
        res.end(body);
      } catch (err) {
        res.writeHead(500).end(String(err));
      }
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
}

/** node:http plus what every authenticated read must do at least: read the tenant's pool in Redis. */
async function startMetered(body: Buffer) {
  const { connectRedis } = await import('../src/metering/redis');
  const { RedisLimiter } = await import('../src/metering/limiter');
  const { rateLimitHeaders } = await import('../src/metering/requests');
  // The pool's headers are this baseline's own (from its script), not the sample's.
  for (const name of Object.keys(extraHeaders)) if (/^(x-)?ratelimit/i.test(name)) delete extraHeaders[name];
  const silent = { warn: () => {}, info: () => {} } as unknown as Parameters<typeof connectRedis>[1];
  const limiter = new RedisLimiter(await connectRedis(process.env.METERED_REDIS_URL ?? 'redis://127.0.0.1:6379', silent), 'amp:bench:rl');
  const server = createServer(async (_req, res) => {
    try {
      const pool = await limiter.limit('tenant:bench', 100_000_000, 60_000, 0);
      res.writeHead(200, {
        ...extraHeaders,
        ...rateLimitHeaders(pool),
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': body.length,
      });
      res.end(body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
}
