/**
 * Export and deletion (docs/organizations.md): the owner's export holds the tenant's data and no
 * secret; deleting stops every key, member and webhook at once, an operator may restore within
 * the grace period, the purge keeps only invoices; a user deletes its account unless it owns a
 * tenant with other members. Both backends.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditLog, authUsers, executions, invoices, tenants, webhookSubscriptions } from '../../src/db/schema';
import { purgeDeletedTenants } from '../../src/tenants/deletion';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';

interface User {
  email: string;
  token: string;
  userId: string;
}

backends.describe('tenant export and deletion (%s)', (backend) => {
  let s: TestServer;
  const as = (u: User, path: string, o: Parameters<TestServer['call']>[1] = {}) => s.call(path, { ...o, bearer: u.token });

  async function signUp(who: string): Promise<User> {
    const sb = createClient(s.url, s.config.auth.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const email = `${who}-${randomBytes(4).toString('hex')}@example.com`;
    const { data, error } = await sb.auth.signUp({ email, password: 'correct horse battery' });
    expect(error).toBeNull();
    return { email, token: data.session!.access_token, userId: data.user!.id };
  }

  /** An owner with a tenant on pro, a developer member, a webhook, memory and an execution. */
  async function populatedTenant() {
    const owner = await signUp('owner');
    const created = await as(owner, '/api/v1/auth/register', { body: {} });
    const tenantId: string = created.body.tenant_id;
    const key: string = created.body.api_key;
    await s.setPlan(tenantId, 'pro');
    const dev = await signUp('dev');
    const sent = await as(owner, '/api/v1/members/invitations', { body: { email: dev.email, role: 'developer' } });
    const token = new URL(sent.body.accept_url).pathname.split('/').pop();
    expect((await as(dev, `/api/v1/members/invitations/${token}/accept`, { method: 'POST' })).status).toBe(200);
    const hook = await s.call('/api/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook', events: ['execution.completed'] } });
    expect(hook.status, hook.text).toBe(201);
    await s.call('/api/v1/memory', { key, body: { agent_id: 'a', key: 'k', value: { hello: 'world' } } });
    expect((await s.call('/api/v1/modules/crypto/execute', { key, body: { action: 'uuid', input: {} } })).status).toBe(200);
    return { owner, dev, tenantId, key, webhookSecret: hook.body.secret as string };
  }

  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => s?.close());

  it('the owner exports everything but secrets; others may not', async () => {
    const t = await populatedTenant();
    expectError(await as(t.dev, '/api/v1/tenant/export'), 403, 'forbidden');
    const exported = await as(t.owner, '/api/v1/tenant/export');
    expect(exported.status, exported.text).toBe(200);
    const body = exported.body;
    expect(body).toMatchObject({ format: 'amp-tenant-export/1', tenant: { id: t.tenantId, plan: 'pro' } });
    expect(body.members.map((m: { role: string }) => m.role).sort()).toEqual(['developer', 'owner']);
    expect(body.keys).toHaveLength(1);
    expect(body.webhooks[0]).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['execution.completed'] });
    expect(body.executions).toMatchObject({ truncated: false, data: [expect.objectContaining({ module: 'crypto', action: 'uuid' })] });
    expect(body.memory.data).toEqual([expect.objectContaining({ agent_id: 'a', key: 'k', value: { hello: 'world' } })]);
    expect(exported.text).not.toContain(t.key);
    expect(exported.text).not.toContain(t.webhookSecret);
    expect(exported.text).not.toMatch(/secret_?hash|secretEncrypted|whsec_/i);
    // A `*` key may export too (scripts); the export is audited.
    expect((await s.call('/api/v1/tenant/export', { key: t.key })).status).toBe(200);
    const audited = await s.svc.db.select().from(auditLog).where(eq(auditLog.tenantId, t.tenantId));
    expect(audited.filter((a) => a.action === 'tenant.exported')).toHaveLength(2);
  });

  it('deletion stops keys, members and webhooks at once; an operator restores; the purge keeps invoices only', async () => {
    const t = await populatedTenant();
    const [tenantRow] = await s.svc.db.select().from(tenants).where(eq(tenants.id, t.tenantId));
    expectError(await as(t.owner, '/api/v1/tenant/delete', { body: { confirm: 'wrong name' } }), 400, 'invalid_request');
    expectError(await as(t.dev, '/api/v1/tenant/delete', { body: { confirm: tenantRow!.agentName } }), 403, 'forbidden');
    expectError(await s.call('/api/v1/tenant/delete', { key: t.key, body: { confirm: tenantRow!.agentName } }), 403, 'forbidden');

    const deleted = await as(t.owner, '/api/v1/tenant/delete', { body: { confirm: tenantRow!.agentName } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ tenant_id: t.tenantId, deleted: true });
    const graceDays = (Date.parse(deleted.body.purge_after) - Date.now()) / 86_400_000;
    expect(graceDays).toBeGreaterThan(29.9);
    expect(graceDays).toBeLessThan(30.1);
    // Nobody acts for it any more, on the very next request.
    expectError(await s.call('/api/v1/me', { key: t.key }), 401, 'unauthorized');
    expectError(await as(t.owner, '/api/v1/me'), 401, 'unauthorized');
    expectError(await as(t.dev, '/api/v1/me', { headers: { 'x-tenant-id': t.tenantId } }), 404, 'not_found');
    const [hook] = await s.svc.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.tenantId, t.tenantId));
    expect(hook!.suspendedAt).not.toBeNull();
    // The owner's email is free for a new tenant at once.
    const again = await as(t.owner, '/api/v1/auth/register', { body: {} });
    expect(again.status, again.text).toBe(201);

    // Restored by an operator: members are back, keys stay revoked, webhooks resume.
    const restored = await s.call(`/api/v1/admin/tenants/${t.tenantId}/restore`, {
      method: 'POST',
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toEqual({ tenant_id: t.tenantId, restored: true, owner_email_restored: false });
    expect((await as(t.owner, '/api/v1/me', { headers: { 'x-tenant-id': t.tenantId } })).body.tenant_id).toBe(t.tenantId);
    expectError(await s.call('/api/v1/me', { key: t.key }), 401, 'unauthorized');
    const [resumed] = await s.svc.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.tenantId, t.tenantId));
    expect(resumed!.suspendedAt).toBeNull();
    expectError(
      await s.call(`/api/v1/admin/tenants/${t.tenantId}/restore`, { method: 'POST', headers: { 'x-admin-token': ADMIN_TOKEN } }),
      409,
      'conflict',
    );

    // Deleted again, and purged after the grace period: the invoices stay.
    await s.svc.db.insert(invoices).values({
      id: `inv_test${randomBytes(6).toString('hex')}`,
      tenantId: t.tenantId,
      number: 1,
      cycleStart: '2026-10-01',
      periodStart: new Date('2026-10-01T00:00:00Z'),
      periodEnd: new Date('2026-11-01T00:00:00Z'),
      lines: [],
      subtotalMicroUsd: 0,
      totalMicroUsd: 0,
      billedToName: 'Owner',
      billedToEmail: t.owner.email,
      dueAt: new Date('2026-11-15T00:00:00Z'),
    });
    expect(
      (await as(t.owner, '/api/v1/tenant/delete', { headers: { 'x-tenant-id': t.tenantId }, body: { confirm: tenantRow!.agentName } }))
        .status,
    ).toBe(200);
    expect(await purgeDeletedTenants(s.svc)).toBe(0);
    await s.svc.db
      .update(tenants)
      .set({ purgeAfter: new Date(Date.now() - 1000) })
      .where(eq(tenants.id, t.tenantId));
    expect(await purgeDeletedTenants(s.svc)).toBe(1);
    expect(await s.svc.db.select().from(executions).where(eq(executions.tenantId, t.tenantId))).toHaveLength(0);
    expect(await s.svc.db.select().from(invoices).where(eq(invoices.tenantId, t.tenantId))).toHaveLength(1);
    const [purged] = await s.svc.db.select().from(tenants).where(eq(tenants.id, t.tenantId));
    expect(purged).toMatchObject({ agentName: 'deleted tenant', purgedAt: expect.any(Date) });
    expect(purged!.ownerEmail).not.toContain(t.owner.email);
    expectError(
      await s.call(`/api/v1/admin/tenants/${t.tenantId}/restore`, { method: 'POST', headers: { 'x-admin-token': ADMIN_TOKEN } }),
      409,
      'conflict',
    );
  });

  it('a user deletes its account, unless it owns a tenant with other members', async () => {
    const t = await populatedTenant();
    expectError(await as(t.owner, '/api/v1/auth/delete-account', { body: { confirm: 'someone@else.com' } }), 400, 'invalid_request');
    const refused = expectError(await as(t.owner, '/api/v1/auth/delete-account', { body: { confirm: t.owner.email } }), 409, 'conflict');
    expect(refused.reason).toBe('owns_shared_tenant');
    // The developer leaves with its account; its user is gone.
    const gone = await as(t.dev, '/api/v1/auth/delete-account', { body: { confirm: t.dev.email } });
    expect(gone.body).toEqual({ deleted: true, deleted_tenants: [] });
    expect(await s.svc.db.select().from(authUsers).where(eq(authUsers.id, t.dev.userId))).toHaveLength(0);
    expect((await as(t.owner, '/api/v1/members')).body.data).toHaveLength(1);
    // Now alone, the owner may go, and its tenant with it.
    const done = await as(t.owner, '/api/v1/auth/delete-account', { body: { confirm: t.owner.email } });
    expect(done.body).toEqual({ deleted: true, deleted_tenants: [t.tenantId] });
    expectError(await s.call('/api/v1/me', { key: t.key }), 401, 'unauthorized');
  });
});
