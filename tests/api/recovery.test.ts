import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { events, executions } from '../../src/db/schema';
import { startTestServer } from '../harness';

describe('restart after a crash (embedded)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-recovery-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('closes executions left running as failed (interrupted) with their execution.failed event', async () => {
    const first = await startTestServer({ dataDir });
    const t = await first.register();
    // What a crash mid-execution leaves behind: a `running` row (its quota already counted).
    await first.svc.db.insert(executions).values({
      id: 'exe_crashedcrashedcrash1',
      tenantId: t.tenantId,
      module: 'text',
      action: 'slugify',
      status: 'running',
      requestId: 'req_crash',
      inputBytes: 10,
    });
    await first.close();

    const second = await startTestServer({ dataDir });
    try {
      const res = await second.call('/api/v1/executions/exe_crashedcrashedcrash1', { key: t.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
      const failed = await second.svc.db
        .select()
        .from(events)
        .where(and(eq(events.tenantId, t.tenantId), eq(events.type, 'execution.failed')));
      expect(failed).toHaveLength(1);
      expect(failed[0]!.data).toMatchObject({ execution_id: 'exe_crashedcrashedcrash1', status: 'failed', tenant_id: t.tenantId });
    } finally {
      await second.close();
    }
    // Two cold embedded starts from an empty data directory (initdb, migrations): 7 s here, 30+ s on a loaded machine.
  }, 90_000);

  it('answers HEAD like GET without a body', async () => {
    const s = await startTestServer();
    try {
      const res = await fetch(`${s.url}/api/v1/health`, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    } finally {
      await s.close();
    }
  });
});
