/**
 * Certification runs are durable pg-boss jobs: a run queued (by a publish, started later) before
 * the service stops is performed by the next one, on both backends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { CERTIFICATION_QUEUE } from '../../src/certification/queue';
import { certificationRuns } from '../../src/db/schema';
import { backends, createTestDatabase, startTestServer, type TestServer } from '../harness';
import { objectSchema } from '../module-fixtures';

backends.describe('certification runs survive a restart (%s)', (backend) => {
  it('a run queued before the service stopped is performed after it starts again', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-cert-restart-'));
    const database = backend === 'postgres' ? await createTestDatabase() : undefined;
    // The publish's run starts 15 s later: surely after the first instance is gone.
    const options = { backend, dataDir, databaseUrl: database?.url, env: { CERTIFICATION_PUBLISH_DELAY_MS: '15000' } };
    let second: TestServer | undefined;
    try {
      const first = await startTestServer(options);
      const t = await first.register();
      const name = `restart-${process.pid % 1000}`;
      const published = await first.call('/api/v1/modules', {
        key: t.apiKey,
        body: {
          name,
          version: '1.0.0',
          title: 'Restart check',
          description: 'A published module certified across a restart.',
          category: 'math',
          tags: ['math'],
          runtime: { type: 'javascript', source: 'function handle(action, input) { return { sum: input.a + input.b }; }' },
          actions: [
            {
              name: 'add',
              description: 'Adds two numbers together.',
              input_schema: objectSchema({ a: { type: 'number' }, b: { type: 'number' } }),
              output_schema: objectSchema({ sum: { type: 'number' } }),
              examples: [{ input: { a: 1, b: 2 }, output: { sum: 3 } }],
            },
          ],
        },
      });
      expect(published.status, published.text).toBe(201);
      const [queued] = await first.svc.db.select().from(certificationRuns).where(eq(certificationRuns.moduleName, name));
      expect(queued).toMatchObject({ status: 'queued', trigger: 'publish' });
      // Never certified yet: tier none, no checks, the queued run pending.
      const before = await first.call(`/api/v1/certification/${name}/report`, { key: t.apiKey });
      expect(before.body).toMatchObject({
        module: name,
        tier: 'none',
        previous_tier: 'none',
        checks_total: 0,
        checks: [],
        ran_at: null,
        run_id: null,
      });
      expect(before.body.pending_run).toMatchObject({ id: queued!.id, status: 'queued', trigger: 'publish' });
      await first.close();

      second = await startTestServer(options);
      // The first instance is gone: the run's delayed start is brought forward instead of waited out.
      await second.svc.boss
        .getDb()
        .executeSql(`update pgboss.job set start_after = now() where name = $1 and state = 'created'`, [CERTIFICATION_QUEUE]);
      const until = Date.now() + 180_000;
      let run = queued!;
      while (run.status === 'queued' || run.status === 'running') {
        if (Date.now() > until) throw new Error(`the run did not finish after the restart: ${run.status}`);
        await new Promise((r) => setTimeout(r, 250));
        run = (await second.svc.db.select().from(certificationRuns).where(eq(certificationRuns.id, queued!.id)))[0]!;
      }
      expect(run).toMatchObject({ status: 'completed', checksTotal: 5 });
      expect(['gold', 'silver']).toContain(run.tier);
      const report = await second.call(`/api/v1/certification/${name}/report`, { key: t.apiKey });
      expect(report.body).toMatchObject({ run_id: queued!.id, tier: run.tier });
    } finally {
      await second?.close();
      // The PostgreSQL database outlives both instances: dropped here, after them.
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
