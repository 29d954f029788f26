/**
 * Database deadlines (docs/operations.md): two instances on one PostgreSQL database, A's
 * connections through a TCP proxy this test controls. One of A's transactions is frozen just
 * before its COMMIT (the proxy drops every byte of that connection from then on: a half-open
 * connection, its backend `idle in transaction` holding the tenant's row locks). The healthy
 * instance B keeps answering the same tenant (200 or 503, never a hang), another tenant keeps
 * being served, PostgreSQL ends the stalled session at its idle-in-transaction deadline, and no
 * call whose client got a 503 is recorded as a success.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './child-service';
import { createTestDatabase, startTestServer, type TestServer } from './harness';
import { missing } from './needs';
import { startReceiver, type Receiver } from './receiver';

/** Short deadlines, so the test waits seconds; the bound on every request is far above them. */
const DEADLINES = {
  DATABASE_STATEMENT_TIMEOUT_MS: '3000',
  DATABASE_LOCK_TIMEOUT_MS: '1000',
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5000',
};
/** No answer within this is a hang (today's code waits as long as the frozen holder). */
const REQUEST_BOUND_MS = 25_000;

/**
 * Forwards to PostgreSQL. Once armed with a statement name, the first connection that runs that
 * statement is frozen at its next COMMIT: that COMMIT and every later byte, both ways, are
 * dropped, and the connection is left open (nothing tells either side).
 */
async function startFreezingProxy(target: URL) {
  const sockets = new Set<Socket>();
  let armed: Buffer | undefined;
  let frozen = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    let ranStatement = false;
    let isFrozen = false;
    client.on('data', (chunk: Buffer) => {
      if (isFrozen) return;
      if (armed && chunk.includes(armed)) ranStatement = true;
      else if (armed && ranStatement && /commit/i.test(chunk.toString('latin1'))) {
        isFrozen = true;
        armed = undefined;
        frozen++;
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!isFrozen) client.write(chunk);
    });
    const end = () => {
      if (isFrozen) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    /** The named statement (as sent in its Parse or Bind message) whose connection freezes at its next COMMIT. */
    freezeAfter: (statement: string) => (armed = Buffer.from(`${statement}\0`)),
    get frozen() {
      return frozen;
    },
    close: () =>
      new Promise<void>((r) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => r());
      }),
  };
}

interface Answer {
  status: number;
  requestId: string;
}

/** An inline execution (one commit: quota, row, event), bounded: a hang is reported as status 0. */
async function slugify(server: TestServer, apiKey: string, requestId: string): Promise<Answer> {
  try {
    const res = await fetch(`${server.url}/api/v1/modules/text/execute`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ action: 'slugify', input: { text: requestId } }),
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    const body = (await res.json()) as { error?: string };
    if (res.status === 503) expect(body.error).toBe('unavailable');
    if (res.status === 503) expect(res.headers.get('retry-after')).toBeTruthy();
    return { status: res.status, requestId };
  } catch {
    return { status: 0, requestId };
  }
}

describe.skipIf(missing.postgres !== undefined)('database deadlines: a stalled transaction holder on one instance', () => {
  let a: TestServer;
  let b: TestServer;
  let proxy: Awaited<ReturnType<typeof startFreezingProxy>>;
  let receiver: Receiver;
  let admin: pg.Client;
  let databaseName: string;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase();
    dropDatabase = db.drop;
    databaseName = new URL(db.url).pathname.slice(1);
    proxy = await startFreezingProxy(new URL(db.url));
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const env = { ...DEADLINES, WEBHOOK_ALLOW_PRIVATE: '1' };
    const redis = missing.redis === undefined;
    b = await startTestServer({ backend: 'postgres', databaseUrl: db.url, redis, env });
    a = await startTestServer({ backend: 'postgres', databaseUrl: viaProxy.toString(), redis, env });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    receiver = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    // The frozen connection's bytes go nowhere: closing the proxy ends it, so A's close cannot wait on it.
    await proxy?.close();
    await Promise.allSettled([a?.close(), b?.close()]);
    await admin?.end().catch(() => {});
    await receiver?.close();
    await dropDatabase?.();
  }, 120_000);

  it('the healthy instance keeps answering the tenant, the stalled session ends, and no refused call is recorded as a success', async () => {
    // A tenant with a webhook subscription: its executions are written in a transaction (its event's deliveries).
    const t = await b.register();
    await b.setPlan(t.tenantId, 'business');
    const sub = await b.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['execution.completed'] } });
    expect(sub.status).toBe(201);
    const other = await b.register();
    await b.setPlan(other.tenantId, 'business');
    expect((await slugify(a, t.apiKey, 'warm-a')).status).toBe(200);

    // A's transaction writing the tenant's execution freezes before its COMMIT.
    proxy.freezeAfter('amp_record_executions');
    const onFrozen = slugify(a, t.apiKey, 'frozen-a');
    await until('a transaction frozen before its commit', async () => proxy.frozen === 1, 20_000, 50);
    await until(
      'the frozen backend idle in transaction',
      async () =>
        (await admin.query(`select 1 from pg_stat_activity where datname = $1 and state = 'idle in transaction'`, [databaseName])).rows
          .length > 0,
      10_000,
      50,
    );

    // B serves the same tenant (and another) meanwhile: every call answers, 200 or 503.
    const answers: Answer[] = [];
    let round = 0;
    await until(
      "the tenant's calls on B succeeding again",
      async () => {
        round++;
        const got = await Promise.all([
          ...Array.from({ length: 4 }, (_, i) => slugify(b, t.apiKey, `t-${round}-${i}`)),
          slugify(b, other.apiKey, `other-${round}`),
        ]);
        answers.push(...got);
        for (const answer of got) expect([200, 503], `${answer.requestId} answered ${answer.status}`).toContain(answer.status);
        return got.slice(0, 4).every((x) => x.status === 200);
      },
      60_000,
      0,
    );
    const frozen = await onFrozen;
    answers.push(frozen);
    expect([200, 503], `the frozen call answered ${frozen.status}`).toContain(frozen.status);
    // Another tenant's calls are never refused for the stalled tenant's locks.
    expect(answers.filter((x) => x.requestId.startsWith('other-') && x.status !== 200)).toEqual([]);

    // PostgreSQL ended the stalled session: nothing idle in a transaction, nothing waiting on a lock.
    await until(
      'no session idle in transaction or waiting on a lock',
      async () =>
        (
          await admin.query(
            `select 1 from pg_stat_activity where datname = $1 and (state = 'idle in transaction' or wait_event_type = 'Lock')`,
            [databaseName],
          )
        ).rows.length === 0,
      30_000,
    );

    // A call whose client got a 503 is not recorded later as a success (nor is the frozen one).
    const refused = answers.filter((x) => x.status !== 200).map((x) => x.requestId);
    expect(refused).toContain('frozen-a');
    const late = await admin.query(`select request_id from executions where status = 'success' and request_id = any($1)`, [refused]);
    expect(late.rows).toEqual([]);
    // Each 200 was recorded as the success it answered.
    const succeeded = answers.filter((x) => x.status === 200).map((x) => x.requestId);
    const recorded = await admin.query(`select request_id from executions where status = 'success' and request_id = any($1)`, [succeeded]);
    expect(recorded.rows).toHaveLength(succeeded.length);
  }, 180_000);
});
