/**
 * The shared test harness: starts the real server on a random port (embedded PGlite, or a fresh
 * PostgreSQL database when TEST_DATABASE_URL is set), registers tenants, changes plans, and makes
 * HTTP calls. Every test file uses it instead of rolling its own.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe } from 'vitest';
import { openDatabase, type Database } from '../src/db';
import { startServer, type RunningServer } from '../src/server/http/server';
import { missing, TEST_DATABASE_URL, TEST_REDIS_URL } from './needs';

export type Backend = 'embedded' | 'postgres';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * A client address of the test's own, for `X-Forwarded-For` to a server started with
 * `TRUST_PROXY: '1'`: per-address pools (the public request pool, sign-in, OAuth registration)
 * then count only this test's requests, on a Redis that every PostgreSQL file shares.
 */
export const clientAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(250)}`;
export { CHROMIUM, missing, TEST_DATABASE_URL, TEST_REDIS_URL } from './needs';

/**
 * Backends the HTTP suites run on: always embedded, plus PostgreSQL+Redis when CI gives URLs.
 * Suites use `backends.describe(...)` below, so that a variant left out is reported as skipped.
 */
export function backends(): Backend[] {
  return missing.postgres ? ['embedded'] : ['embedded', 'postgres'];
}

/**
 * `describe` once per backend (`%s` in the name is the backend): embedded always; the
 * PostgreSQL+Redis variant runs when TEST_DATABASE_URL is set and is reported as skipped otherwise.
 */
backends.describe = (name: string, fn: (backend: Backend) => void): void => {
  for (const backend of ['embedded', 'postgres'] as const) {
    describe.skipIf(backend === 'postgres' && missing.postgres !== undefined)(name.replace('%s', backend), () => fn(backend));
  }
};

/**
 * A fresh PostgreSQL database on the TEST_DATABASE_URL server, dropped by the returned function:
 * a clone of the run's migrated template (tests/global-setup.ts), or `{ empty: true }` one that
 * nothing has touched (for what migrations do to a fresh database).
 */
export async function createTestDatabase(opts: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const name = `amp_t_${randomBytes(6).toString('hex')}`;
  const template = opts.empty ? undefined : process.env.AMP_TEST_PG_TEMPLATE;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

/**
 * A database of its own on `backend`, opened directly for tests of the data layer (no server): a
 * copy of the run's migrated template, a PGlite directory or a PostgreSQL database. `close` also
 * removes it.
 */
export async function openTestDatabase(backend: Backend, poolSize = 2): Promise<{ database: Database; close(): Promise<void> }> {
  if (backend === 'postgres') {
    const created = await createTestDatabase();
    const database = await openDatabase({ databaseUrl: created.url, dataDir: '', poolSize });
    return { database, close: () => database.close().then(() => created.drop()) };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-db-'));
  const database = await openDatabase({ dataDir, pgliteTemplate: process.env.AMP_TEST_PGLITE_TEMPLATE });
  return { database, close: () => database.close().then(() => rmSync(dataDir, { recursive: true, force: true })) };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  method?: string;
  key?: string;
  bearer?: string;
  body?: unknown;
  /** Sent as is (not JSON-encoded) when set. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer extends RunningServer {
  backend: Backend;
  call<T = any>(path: string, opts?: CallOptions): Promise<ApiResponse<T>>;
  register(overrides?: { agent_name?: string; owner_email?: string }): Promise<{ apiKey: string; tenantId: string; email: string }>;
  setPlan(tenantId: string, plan: 'free' | 'pro' | 'business' | 'enterprise', requestsPerMinute?: number | null): Promise<void>;
}

export interface TestServerOptions {
  backend?: Backend;
  env?: Record<string, string | undefined>;
  /** Share another server's database (a second instance). */
  databaseUrl?: string;
  dataDir?: string;
  redis?: boolean;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const backend = opts.backend ?? 'embedded';
  const cleanups: (() => Promise<void> | void)[] = [];
  let databaseUrl = opts.databaseUrl;
  if (backend === 'postgres' && !databaseUrl) {
    const db = await createTestDatabase();
    databaseUrl = db.url;
    cleanups.push(() => db.drop());
  }
  let dataDir = opts.dataDir;
  if (!dataDir) {
    dataDir = mkdtempSync(path.join(tmpdir(), 'amp-test-'));
    const dir = dataDir;
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  }
  const useRedis = opts.redis ?? backend === 'postgres';
  const running = await startServer({
    pgliteTemplate: process.env.AMP_TEST_PGLITE_TEMPLATE,
    env: {
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      REDIS_URL: useRedis ? TEST_REDIS_URL : undefined,
      // Servers sharing a database share Redis keys (instances of one deployment); any other
      // server's are its own, so the files a worker runs one after another never fill each
      // other's per-IP pools (every test client is 127.0.0.1).
      REDIS_KEY_PREFIX: `test-${createHash('sha256')
        .update(databaseUrl ?? dataDir)
        .digest('hex')
        .slice(0, 12)}:`,
      REGISTER_LIMIT_PER_HOUR: '10000',
      OAUTH_REGISTER_LIMIT_PER_HOUR: '10000',
      // Every PostgreSQL variant shares one Redis and every test client is 127.0.0.1: concurrent
      // files' sign-ins would share one per-IP window.
      SIGN_IN_LIMIT_PER_MINUTE: '10000',
      ...opts.env,
    },
  });

  const call = async <T = any>(p: string, o: CallOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers['x-api-key'] = o.key;
    if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
    let body: string | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(running.url + p, { method: o.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  let n = 0;
  const server: TestServer = {
    ...running,
    backend,
    call,
    async register(overrides = {}) {
      const email = overrides.owner_email ?? `owner-${randomBytes(5).toString('hex')}-${++n}@example.com`;
      const res = await call('/api/v1/auth/register', { body: { agent_name: overrides.agent_name ?? 'test-agent', owner_email: email } });
      if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
      return { apiKey: res.body.api_key, tenantId: res.body.tenant_id, email };
    },
    async setPlan(tenantId, plan, requestsPerMinute) {
      const res = await call(`/api/v1/admin/tenants/${tenantId}/plan`, {
        method: 'PUT',
        headers: { 'x-admin-token': ADMIN_TOKEN },
        body: requestsPerMinute === undefined ? { plan } : { plan, requests_per_minute: requestsPerMinute },
      });
      if (res.status !== 200) throw new Error(`setPlan failed: ${res.status} ${res.text}`);
    },
    async close() {
      await running.close();
      for (const c of cleanups.reverse()) await c();
    },
  };
  return server;
}

/** Asserts the error format (docs/decisions.md, Errors) and returns the body. */
export function expectError(res: ApiResponse, status: number, code: string) {
  if (res.status !== status || res.body?.error !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text}`);
  }
  if (typeof res.body.message !== 'string' || res.body.request_id !== res.headers.get('x-request-id')) {
    throw new Error(`malformed error body: ${res.text}`);
  }
  return res.body;
}
