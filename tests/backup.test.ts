/**
 * `npm run db:backup` and `npm run db:restore` on both backends (docs/operations.md, Backups): a
 * restored backup serves the same tenants, keys, executions and webhook subscriptions, and a
 * restore that could not read the backup's encrypted data, or would overwrite a database, is refused.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { backends, createTestDatabase, startTestServer, type Backend, type TestServer } from './harness';
import { scriptCommand } from './server-command';

const root = path.resolve(import.meta.dirname, '..');
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-backup-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function freshPostgres(): Promise<string> {
  const db = await createTestDatabase({ empty: true });
  cleanups.push(() => db.drop());
  return db.url;
}

/** Runs scripts/db-backup.ts as `npm run db:<command>` does, with the service's configuration in `env`. */
function dbScript(command: 'backup' | 'restore', args: string[], env: Record<string, string | undefined>) {
  // Only what the script needs: none of the test run's own configuration leaks in.
  const childEnv: NodeJS.ProcessEnv = { NODE_ENV: 'test', PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent' };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) childEnv[name] = value;
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, scriptCommand('scripts/db-backup.ts', [command, ...args]), {
      cwd: root,
      env: childEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

/** What a tenant leaves behind that a restore must bring back. */
async function seed(s: TestServer) {
  const tenant = await s.register();
  await s.setPlan(tenant.tenantId, 'pro');
  const executed = await s.call('/api/v1/modules/text/execute', {
    key: tenant.apiKey,
    body: { action: 'slugify', input: { text: 'Backed Up' } },
  });
  expect(executed.status).toBe(200);
  const webhook = await s.call('/api/v1/webhooks', {
    key: tenant.apiKey,
    body: { url: 'https://hooks.example.com/amp', events: ['*'] },
  });
  expect(webhook.status).toBe(201);
  const poll = await s.call('/api/v1/webhooks', { key: tenant.apiKey, body: { kind: 'poll', events: ['execution.completed'] } });
  expect(poll.status).toBe(201);
  return {
    tenant,
    executionId: executed.body.execution_id as string,
    webhookId: webhook.body.id as string,
    pollId: poll.body.id as string,
  };
}

async function expectServes(s: TestServer, seeded: Awaited<ReturnType<typeof seed>>) {
  const me = await s.call('/api/v1/me', { key: seeded.tenant.apiKey });
  expect(me.status).toBe(200);
  expect(me.text).toContain(seeded.tenant.tenantId);
  const executions = await s.call('/api/v1/executions', { key: seeded.tenant.apiKey });
  expect(executions.status).toBe(200);
  expect(executions.body.data.map((e: { execution_id: string }) => e.execution_id)).toEqual([seeded.executionId]);
  const webhook = await s.call(`/api/v1/webhooks/${seeded.webhookId}`, { key: seeded.tenant.apiKey });
  expect(webhook.status).toBe(200);
  // Polling goes on across the restore: the restored event, then one recorded after it, each once.
  const messages = (after?: string) =>
    s.call(`/api/v1/webhooks/${seeded.pollId}/messages${after ? `?after=${after}` : ''}`, { key: seeded.tenant.apiKey });
  const restored = await messages();
  expect(restored.body.data.map((e: { data: { execution_id: string } }) => e.data.execution_id)).toEqual([seeded.executionId]);
  const executed = await s.call('/api/v1/modules/text/execute', {
    key: seeded.tenant.apiKey,
    body: { action: 'slugify', input: { text: 'After' } },
  });
  expect(executed.status).toBe(200);
  const deadline = Date.now() + 10_000;
  let next = await messages(restored.body.next_cursor);
  while (next.body.data.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    next = await messages(restored.body.next_cursor);
  }
  expect(next.body.data.map((e: { data: { execution_id: string } }) => e.data.execution_id)).toEqual([executed.body.execution_id]);
}

/** Runs one statement on a PostgreSQL database. */
async function sqlOn(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

backends.describe('backup and restore (%s)', (backend: Backend) => {
  const postgres = backend === 'postgres';

  it('a restored backup serves the same tenants, keys, executions and webhooks', async () => {
    const dataDir = tempDir();
    const databaseUrl = postgres ? await freshPostgres() : undefined;
    const original = await startTestServer({ backend, dataDir, databaseUrl });
    const seeded = await seed(original);
    if (!postgres) {
      // The embedded database admits one process: refused while the service runs, taken once it stops.
      const refused = await dbScript('backup', [path.join(dataDir, 'early.backup')], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`process ${process.pid}`);
      await original.close();
    }
    // Events written by another cluster whose transaction ids run far ahead of the one restored into.
    if (postgres) await sqlOn(databaseUrl!, `update events set xid = '999999999999'::xid8`);
    const file = path.join(tempDir(), 'amp.backup');
    const backup = await dbScript('backup', [file], { DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    expect(backup, backup.stderr).toMatchObject({ code: 0 });
    expect(backup.stderr).toContain('holds no secrets');
    if (postgres) await original.close();

    const restoredDir = tempDir();
    copyFileSync(path.join(dataDir, 'secrets.json'), path.join(restoredDir, 'secrets.json'));
    const restoredUrl = postgres ? await freshPostgres() : undefined;
    const restore = await dbScript('restore', [file], { DATA_DIR: restoredDir, DATABASE_URL: restoredUrl });
    expect(restore, restore.stderr).toMatchObject({ code: 0 });
    // Rebased: they sort before every event this cluster writes.
    if (postgres) expect(await sqlOn(restoredUrl!, `select count(*)::int as n from events where xid <> '0'::xid8`)).toEqual([{ n: 0 }]);

    const restored = await startTestServer({ backend, dataDir: restoredDir, databaseUrl: restoredUrl });
    cleanups.push(() => restored.close());
    await expectServes(restored, seeded);
  }, 240_000);

  it('a restore without the encryption key it needs, or onto a database, is refused', async () => {
    const dataDir = tempDir();
    const databaseUrl = postgres ? await freshPostgres() : undefined;
    const original = await startTestServer({ backend, dataDir, databaseUrl });
    await seed(original);
    await original.close();
    const file = path.join(tempDir(), 'amp.backup');
    expect((await dbScript('backup', [file], { DATA_DIR: dataDir, DATABASE_URL: databaseUrl })).code).toBe(0);

    const keyless = tempDir();
    const keylessUrl = postgres ? await freshPostgres() : undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      // Refused again on a second try: the key the first refusal generated is not kept.
      const refused = await dbScript('restore', [file], { DATA_DIR: keyless, DATABASE_URL: keylessUrl });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('ENCRYPTION_KEY');
      expect(existsSync(path.join(keyless, 'secrets.json'))).toBe(false);
    }

    if (!postgres) {
      const occupied = await dbScript('restore', [file], { DATA_DIR: dataDir });
      expect(occupied.code).toBe(1);
      expect(occupied.stderr).toContain('already holds a database');
    }
    const missingFile = await dbScript('restore', [path.join(keyless, 'nope.backup')], { DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    expect(missingFile.code).toBe(1);
    expect(missingFile.stderr).toContain('No backup file');
  }, 240_000);
});

describe('db-backup arguments', () => {
  it('a missing file argument is a usage error (exit 2)', async () => {
    const result = await dbScript('backup', [], { DATA_DIR: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage: npm run db:backup -- <file>');
  });
});
