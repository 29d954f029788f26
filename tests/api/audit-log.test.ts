/**
 * The audit log (docs/organizations.md, Audit log): every state-changing action leaves exactly one
 * entry, written with its change (a refused change leaves none), naming its actor (the API key,
 * the signed-in user, the operator) and the request (IP, user agent, request id), never a secret;
 * GET /api/v1/audit-log with its filters, pages and CSV export, scoped by tenant and retention;
 * the operators' listing; the retention job.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { purgeExpiredAuditEntries } from '../../src/audit/retention';
import { csvCell } from '../../src/audit/list';
import { auditLog, webhookSubscriptions } from '../../src/db/schema';
import { newTimeOrderedId } from '../../src/lib/ids';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type ApiResponse, type TestServer } from '../harness';
import { objectSchema, uniqueName } from '../module-fixtures';
import { startReceiver, type Receiver } from '../receiver';

const UA = 'audit-test-agent/1.0';
const admin = { 'x-admin-token': ADMIN_TOKEN, 'user-agent': UA };

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

backends.describe('audit log (%s)', (backend) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    s = await startTestServer({
      backend,
      env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,40', WEBHOOK_TIMEOUT_MS: '2000' },
    });
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  async function proTenant() {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro', 100_000);
    return t;
  }

  /** A call as an API key with a known user agent. */
  const as = (key: string, path: string, opts: { method?: string; body?: unknown } = {}) =>
    s.call(path, { key, ...opts, headers: { 'user-agent': UA } });

  const rowsOf = (tenantId: string, action?: string) =>
    s.svc.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), action ? eq(auditLog.action, action) : undefined));

  /** Exactly one entry of `action` on `targetId`, made by the request `res` answered. */
  async function expectOne(tenantId: string, action: string, targetId: string, res: ApiResponse) {
    const rows = (await rowsOf(tenantId, action)).filter((r) => r.targetId === targetId);
    expect(rows, `${action} on ${targetId}`).toHaveLength(1);
    const row = rows[0]!;
    expect(row.requestId).toBe(res.headers.get('x-request-id'));
    expect(row.userAgent).toBe(UA);
    expect(row.ip).toMatch(/127\.0\.0\.1|::1/);
    return row;
  }

  const list = async (key: string, query = '') => {
    const res = await s.call(`/api/v1/audit-log${query}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body as { data: any[]; has_more: boolean; next_cursor: string | null };
  };

  it('keys: created, policy updated, rotated, revoked, each once with the key as actor; no secret anywhere; a refused creation leaves nothing', async () => {
    const t = await proTenant();
    const [primary] = await rowsOf(t.tenantId, 'tenant.created');
    expect(primary).toMatchObject({ actorType: 'system', targetType: 'tenant', targetId: t.tenantId });
    const primaryKeyId = primary!.changes.primary_key_id as string;

    const created = await as(t.apiKey, '/api/v1/keys', { body: { name: 'ci', scopes: ['modules:read', 'modules:execute'] } });
    expect(created.status, created.text).toBe(201);
    const keyId = created.body.key_id as string;
    const row = await expectOne(t.tenantId, 'key.created', keyId, created);
    expect(row).toMatchObject({ actorType: 'key', actorId: primaryKeyId, actorKeyId: primaryKeyId, targetType: 'key' });
    expect(row.changes).toMatchObject({ name: 'ci', scopes: ['modules:read', 'modules:execute'] });

    const policy = await as(t.apiKey, `/api/v1/keys/${keyId}/policy`, { method: 'PUT', body: { modules: ['text'] } });
    expect(policy.status, policy.text).toBe(200);
    expect((await expectOne(t.tenantId, 'key.policy_updated', keyId, policy)).changes).toMatchObject({ fields: ['modules'] });

    const rotated = await as(t.apiKey, `/api/v1/keys/${keyId}/rotate`, { method: 'POST', body: { grace_seconds: 0 } });
    expect(rotated.status, rotated.text).toBe(200);
    await expectOne(t.tenantId, 'key.rotated', keyId, rotated);

    const revoked = await as(t.apiKey, `/api/v1/keys/${keyId}`, { method: 'DELETE' });
    expect(revoked.status, revoked.text).toBe(200);
    await expectOne(t.tenantId, 'key.revoked', keyId, revoked);

    // Refused: a key granting a scope its creator lacks (403), and a revoked key's revocation (404).
    const narrow = await as(t.apiKey, '/api/v1/keys', { body: { name: 'narrow', scopes: ['modules:read'] } });
    const before = (await rowsOf(t.tenantId)).length;
    expectError(await as(narrow.body.api_key, '/api/v1/keys', { body: { name: 'wide', scopes: ['*'] } }), 403, 'insufficient_scope');
    expectError(await as(t.apiKey, `/api/v1/keys/${keyId}`, { method: 'DELETE' }), 404, 'not_found');
    expect(await rowsOf(t.tenantId)).toHaveLength(before);

    const json = JSON.stringify(await rowsOf(t.tenantId)) + JSON.stringify(await list(t.apiKey, '?limit=100'));
    for (const secret of [t.apiKey, created.body.api_key, rotated.body.api_key, narrow.body.api_key]) expect(json).not.toContain(secret);
  });

  it('webhooks: created, updated, secret rotated, tested, enabled, replayed, delivery resent, recovered, deleted; never the secret or a header value', async () => {
    const t = await proTenant();
    const r = await startReceiver();
    receivers.push(r);
    const created = await as(t.apiKey, '/api/v1/webhooks', {
      body: { url: r.url, events: ['execution.completed'], headers: { Authorization: 'Bearer receiver-token-123' } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const row = await expectOne(t.tenantId, 'webhook.created', id, created);
    expect(row.changes).toMatchObject({ url: r.url, events: ['execution.completed'], header_names: ['Authorization'] });

    const updated = await as(t.apiKey, `/api/v1/webhooks/${id}`, {
      method: 'PUT',
      body: { events: ['*'], secret: 'whsec_chosen-secret-0123456789' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect((await expectOne(t.tenantId, 'webhook.updated', id, updated)).changes).toMatchObject({
      fields: ['events', 'secret'],
      events: ['*'],
    });

    const rotated = await as(t.apiKey, `/api/v1/webhooks/${id}/rotate-secret`, { method: 'POST', body: { overlap_seconds: 0 } });
    expect(rotated.status, rotated.text).toBe(200);
    await expectOne(t.tenantId, 'webhook.secret_rotated', id, rotated);

    const tested = await as(t.apiKey, `/api/v1/webhooks/${id}/test`, { method: 'POST', body: {} });
    expect(tested.status, tested.text).toBe(200);
    expect((await expectOne(t.tenantId, 'webhook.tested', id, tested)).changes).toMatchObject({ delivered: true });

    // Enabling an active subscription changes nothing: no entry. A disabled one: one.
    expect((await as(t.apiKey, `/api/v1/webhooks/${id}/enable`, { method: 'POST' })).status).toBe(200);
    expect(await rowsOf(t.tenantId, 'webhook.enabled')).toHaveLength(0);
    await s.call(`/api/v1/admin/webhooks/${id}/enable`, { method: 'POST', headers: admin });
    expect(await rowsOf(t.tenantId, 'webhook.enabled')).toHaveLength(0);

    // Disabled (as 10 failures would), then enabled by an operator: one entry naming the operator.
    await s.svc.db.update(webhookSubscriptions).set({ status: 'disabled', disabledAt: new Date() }).where(eq(webhookSubscriptions.id, id));
    const enabled = await s.call(`/api/v1/admin/webhooks/${id}/enable`, { method: 'POST', headers: admin });
    expect(enabled.status, enabled.text).toBe(200);
    expect(await expectOne(t.tenantId, 'webhook.enabled', id, enabled)).toMatchObject({ actorType: 'operator', actorId: 'admin_token' });

    // An execution and its delivery, then replay, resend and recover.
    const run = await as(t.apiKey, '/api/v1/modules/text/execute', { body: { action: 'slugify', input: { text: 'Audit me' } } });
    expect(run.status, run.text).toBe(200);
    let deliveryId: string | undefined;
    for (let i = 0; i < 200 && !deliveryId; i++) {
      const d = await s.call(`/api/v1/webhooks/${id}`, { key: t.apiKey });
      deliveryId = d.body.deliveries.find(
        (x: any) => x.event === 'execution.completed' && x.kind !== 'test' && x.status === 'succeeded',
      )?.id;
      if (!deliveryId) await new Promise((done) => setTimeout(done, 50));
    }
    expect(deliveryId).toBeDefined();
    const since = new Date(Date.now() - 60_000).toISOString();
    const replayed = await as(t.apiKey, `/api/v1/webhooks/${id}/replay`, { method: 'POST', body: { since } });
    expect(replayed.status, replayed.text).toBe(202);
    await expectOne(t.tenantId, 'webhook.replayed', id, replayed);
    // The replayed delivery finishes before the resend (a pending delivery cannot be resent).
    for (let i = 0; i < 200; i++) {
      const d = await s.call(`/api/v1/webhooks/${id}`, { key: t.apiKey });
      if (d.body.stats.pending_deliveries === 0) break;
      await new Promise((done) => setTimeout(done, 50));
    }
    const resent = await as(t.apiKey, `/api/v1/webhooks/${id}/deliveries/${deliveryId}/resend`, { method: 'POST' });
    expect(resent.status, resent.text).toBe(202);
    expect((await expectOne(t.tenantId, 'webhook.delivery_resent', deliveryId!, resent)).changes).toMatchObject({ webhook_id: id });
    const recovered = await as(t.apiKey, `/api/v1/webhooks/${id}/recover`, { method: 'POST', body: { since } });
    expect(recovered.status, recovered.text).toBe(202);
    await expectOne(t.tenantId, 'webhook.recovered', id, recovered);

    const deleted = await as(t.apiKey, `/api/v1/webhooks/${id}`, { method: 'DELETE' });
    expect(deleted.status, deleted.text).toBe(200);
    await expectOne(t.tenantId, 'webhook.deleted', id, deleted);

    const json = JSON.stringify(await rowsOf(t.tenantId));
    for (const secret of [created.body.secret, rotated.body.secret, 'whsec_chosen-secret-0123456789', 'receiver-token-123'])
      expect(json).not.toContain(secret);
  });

  it('modules, workflows, memory and plan: one entry each; executions and memory writes none', async () => {
    const t = await proTenant();
    const installed = await as(t.apiKey, '/api/v1/modules/math/install', { method: 'POST' });
    expect(installed.status, installed.text).toBe(201);
    await expectOne(t.tenantId, 'module.installed', 'math', installed);
    expect((await as(t.apiKey, '/api/v1/modules/math/install', { method: 'POST' })).status).toBe(200);
    expect(await rowsOf(t.tenantId, 'module.installed')).toHaveLength(1);
    const uninstalled = await as(t.apiKey, '/api/v1/modules/math/install', { method: 'DELETE' });
    expect(uninstalled.status, uninstalled.text).toBe(200);
    await expectOne(t.tenantId, 'module.uninstalled', 'math', uninstalled);

    const name = uniqueName('audited');
    const action = {
      name: 'echo',
      description: 'Echoes.',
      input_schema: objectSchema({ x: { type: 'number' } }),
      output_schema: objectSchema({ x: { type: 'number' } }),
      examples: [{ input: { x: 1 }, output: { x: 1 } }],
    };
    const published = await as(t.apiKey, '/api/v1/modules', {
      body: {
        name,
        version: '1.0.0',
        title: 'Echo',
        description: 'Echoes its input.',
        category: 'utilities',
        tags: [],
        runtime: { type: 'javascript', source: 'function handle(action, input) { return input; }' },
        actions: [action],
      },
    });
    expect(published.status, published.text).toBe(201);
    expect((await expectOne(t.tenantId, 'module.published', name, published)).changes).toMatchObject({
      version: '1.0.0',
      actions: ['echo'],
    });
    // A manual certification run is recorded when it starts one (not when it shares the publish's).
    const certify = await as(t.apiKey, `/api/v1/certification/${name}/run`, { method: 'POST' });
    expect(certify.status, certify.text).toBeLessThan(300);
    expect(await rowsOf(t.tenantId, 'certification.started')).toHaveLength(certify.body.shared ? 0 : 1);
    const changed = await as(t.apiKey, `/api/v1/modules/${name}`, { method: 'PUT', body: { version: '1.0.1' } });
    expect(changed.status, changed.text).toBe(200);
    expect((await expectOne(t.tenantId, 'module.updated', name, changed)).changes).toMatchObject({ fields: ['version'], version: '1.0.1' });

    const wf = await as(t.apiKey, '/api/v1/workflows', {
      body: { name: 'one', steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } }] },
    });
    expect(wf.status, wf.text).toBe(201);
    await expectOne(t.tenantId, 'workflow.created', wf.body.id, wf);
    const wfUpdated = await as(t.apiKey, `/api/v1/workflows/${wf.body.id}`, {
      method: 'PUT',
      body: { name: 'two', steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: 'y' } }] },
    });
    expect(wfUpdated.status, wfUpdated.text).toBe(200);
    expect((await expectOne(t.tenantId, 'workflow.updated', wf.body.id, wfUpdated)).changes).toMatchObject({ name: 'two', version: 2 });
    // A run's cancel is recorded when it cancels, and a refused one (already finished) is not.
    const run = await as(t.apiKey, `/api/v1/workflows/${wf.body.id}/runs`, { body: { input: {} } });
    expect(run.status, run.text).toBe(202);
    const cancel = await as(t.apiKey, `/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}/cancel`, { method: 'POST' });
    expect([200, 409]).toContain(cancel.status);
    expect(await rowsOf(t.tenantId, 'workflow.run_cancelled')).toHaveLength(cancel.status === 200 ? 1 : 0);
    const wfDeleted = await as(t.apiKey, `/api/v1/workflows/${wf.body.id}`, { method: 'DELETE' });
    expect(wfDeleted.status, wfDeleted.text).toBe(200);
    await expectOne(t.tenantId, 'workflow.deleted', wf.body.id, wfDeleted);

    expect((await as(t.apiKey, '/api/v1/memory', { body: { agent_id: 'a1', key: 'k1', value: 'v' } })).status).toBe(201);
    const forgotten = await as(t.apiKey, '/api/v1/memory/a1/k1', { method: 'DELETE' });
    expect(forgotten.status, forgotten.text).toBe(200);
    await expectOne(t.tenantId, 'memory.deleted', 'a1/k1', forgotten);
    expectError(await as(t.apiKey, '/api/v1/memory/a1/k1', { method: 'DELETE' }), 404, 'not_found');
    expect(await rowsOf(t.tenantId, 'memory.deleted')).toHaveLength(1);

    const plan = await as(t.apiKey, '/api/v1/billing/plan', { method: 'PUT', body: { plan: 'business' } });
    expect(plan.status, plan.text).toBe(200);
    expect((await expectOne(t.tenantId, 'plan.changed', t.tenantId, plan)).changes).toEqual({ from: 'pro', to: 'business' });
    // The same plan again changes nothing: no entry.
    expect((await as(t.apiKey, '/api/v1/billing/plan', { method: 'PUT', body: { plan: 'business' } })).status).toBe(200);
    expect(await rowsOf(t.tenantId, 'plan.changed')).toHaveLength(1);

    const actions = new Set((await rowsOf(t.tenantId)).map((r) => r.action));
    for (const never of ['memory.written', 'execution.completed']) expect(actions.has(never)).toBe(false);
    expect([...actions].every((a) => !a.startsWith('execution') && a !== 'memory.put')).toBe(true);
  });

  it('operator actions name the operator; a bearer member names the user; registration with a bearer names its user', async () => {
    const t = await s.register();
    const planSet = await s.call(`/api/v1/admin/tenants/${t.tenantId}/plan`, { method: 'PUT', headers: admin, body: { plan: 'pro' } });
    expect(planSet.status, planSet.text).toBe(200);
    const row = await expectOne(t.tenantId, 'tenant.plan_set', t.tenantId, planSet);
    expect(row).toMatchObject({ actorType: 'operator', actorId: 'admin_token' });
    expect(row.changes).toMatchObject({ from: { plan: 'free' }, to: { plan: 'pro' } });
    const terms = await s.call(`/api/v1/admin/tenants/${t.tenantId}/plan`, {
      method: 'PUT',
      headers: admin,
      body: { plan: 'pro', requests_per_minute: 1234 },
    });
    expect(terms.status, terms.text).toBe(200);
    expect((await expectOne(t.tenantId, 'tenant.terms_updated', t.tenantId, terms)).changes).toMatchObject({
      to: { requests_per_minute: 1234 },
    });

    // A user signed up with the built-in provider links the tenant with its `*` key, then acts.
    const email = `member-${randomBytes(5).toString('hex')}@example.com`;
    const sb = createClient(s.url, s.config.auth.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const { data, error } = await sb.auth.signUp({ email, password: 'correct horse battery' });
    expect(error).toBeNull();
    const bearer = data.session!.access_token;
    const userId = data.user!.id;
    const linked = await s.call('/api/v1/auth/link', { bearer, body: { api_key: t.apiKey }, headers: { 'user-agent': UA } });
    expect(linked.status, linked.text).toBe(200);
    const link = await expectOne(t.tenantId, 'tenant.linked', t.tenantId, linked);
    expect(link).toMatchObject({ actorType: 'user', actorId: userId, actorEmail: email });
    expect(JSON.stringify(link)).not.toContain(t.apiKey);

    const key = await s.call('/api/v1/keys', {
      bearer,
      body: { name: 'by-user', scopes: ['modules:read'] },
      headers: { 'user-agent': UA },
    });
    expect(key.status, key.text).toBe(201);
    expect(await expectOne(t.tenantId, 'key.created', key.body.key_id, key)).toMatchObject({
      actorType: 'user',
      actorId: userId,
      actorEmail: email,
    });

    // The member (owner) reads the log, filtered by its email or its id.
    const byEmail = await s.call(`/api/v1/audit-log?actor=${encodeURIComponent(email.toUpperCase())}`, { bearer });
    expect(byEmail.status, byEmail.text).toBe(200);
    expect(byEmail.body.data.map((e: any) => e.action).sort()).toEqual(['key.created', 'tenant.linked']);
    expect(byEmail.body.data[0].actor).toEqual({ type: 'user', id: userId, email });
    const byId = await s.call(`/api/v1/audit-log?actor=${userId}`, { bearer });
    expect(byId.body.data).toHaveLength(2);

    // Registering with a bearer token: the new tenant's first entry names the user.
    const other = `owner-${randomBytes(5).toString('hex')}@example.com`;
    const sb2 = createClient(s.url, s.config.auth.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const signed = await sb2.auth.signUp({ email: other, password: 'correct horse battery' });
    const registered = await s.call('/api/v1/auth/register', {
      bearer: signed.data.session!.access_token,
      body: { agent_name: 'via-bearer' },
      headers: { 'user-agent': UA },
    });
    expect(registered.status, registered.text).toBe(201);
    const made = await expectOne(registered.body.tenant_id, 'tenant.created', registered.body.tenant_id, registered);
    expect(made).toMatchObject({ actorType: 'user', actorId: signed.data.user!.id, actorEmail: other });
    expect(JSON.stringify(made)).not.toContain(registered.body.api_key);
  });

  it('the listing: newest first, filters, keyset pages, 400 on bad values, 403 without audit:read, tenant isolation, retention', async () => {
    const t = await proTenant();
    for (const name of ['k1', 'k2', 'k3'])
      expect((await as(t.apiKey, '/api/v1/keys', { body: { name, scopes: ['modules:read'] } })).status).toBe(201);
    const wh = await as(t.apiKey, '/api/v1/webhooks', { body: { kind: 'poll', events: ['*'] } });
    expect(wh.status, wh.text).toBe(201);

    const all = await list(t.apiKey, '?limit=100');
    const actions = all.data.map((e) => e.action);
    // tenant.created; plan_set by the harness's setPlan; then the three keys and the webhook, newest first.
    expect(actions).toEqual(['webhook.created', 'key.created', 'key.created', 'key.created', 'tenant.plan_set', 'tenant.created']);
    expect(all.data[0]).toMatchObject({ target: { type: 'webhook', id: wh.body.id }, actor: { type: 'key' } });
    expect(all.data[0].actor.key_id).toBe(all.data[0].actor.id);
    expect(Object.keys(all.data[0]).sort()).toEqual(['action', 'actor', 'at', 'changes', 'id', 'ip', 'request_id', 'target', 'user_agent']);

    expect((await list(t.apiKey, '?action=key.*')).data.map((e) => e.action)).toEqual(['key.created', 'key.created', 'key.created']);
    expect((await list(t.apiKey, '?action=key.created&limit=1')).data).toHaveLength(1);
    expect((await list(t.apiKey, `?target_type=webhook&target_id=${wh.body.id}`)).data).toHaveLength(1);
    expect((await list(t.apiKey, `?actor=${all.data[0].actor.id}`)).data).toHaveLength(4);
    expect((await list(t.apiKey, `?since=${encodeURIComponent(all.data[0].at)}`)).data[0].id).toBe(all.data[0].id);
    expect((await list(t.apiKey, `?until=${encodeURIComponent(all.data.at(-1).at)}`)).data).toHaveLength(0);
    expect((await list(t.apiKey, '?since=2000-01-01&until=2001-01-01')).data).toHaveLength(0);

    // Pages of two cover everything once, in order.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(t.apiKey, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data.map((e) => e.id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(all.data.map((e) => e.id));

    for (const bad of [
      'since=yesterday',
      'until=2026-13-01',
      'action=KEY',
      'action=key.%25',
      'limit=0',
      'cursor=nope',
      'format=xml',
      'other=1',
    ]) {
      const res = await s.call(`/api/v1/audit-log?${bad}`, { key: t.apiKey });
      expect(expectError(res, 400, 'invalid_request').issues?.length, bad).toBeGreaterThan(0);
    }

    // A key without audit:read: 403 insufficient_scope; one with it reads.
    const reader = await as(t.apiKey, '/api/v1/keys', { body: { name: 'reader', scopes: ['audit:read'] } });
    const noScope = await as(t.apiKey, '/api/v1/keys', { body: { name: 'no', scopes: ['modules:read'] } });
    expectError(await s.call('/api/v1/audit-log', { key: noScope.body.api_key }), 403, 'insufficient_scope');
    expectError(await s.call('/api/v1/audit-log.csv', { key: noScope.body.api_key }), 403, 'insufficient_scope');
    expect((await list(reader.body.api_key)).data.length).toBeGreaterThan(0);

    // Tenant B sees none of A's entries, whatever it filters on.
    const b = await proTenant();
    const bAll = await list(b.apiKey, '?limit=100');
    expect(bAll.data.map((e) => e.action)).toEqual(['tenant.plan_set', 'tenant.created']);
    expect((await list(b.apiKey, `?target_id=${wh.body.id}`)).data).toEqual([]);
    expect((await list(b.apiKey, `?actor=${all.data[0].actor.id}`)).data).toEqual([]);

    // Past the plan's retention (free: 30 days) an entry is not listed; the job deletes it; idempotently.
    const old = {
      id: newTimeOrderedId('aud'),
      tenantId: b.tenantId,
      actorType: 'system' as const,
      actorId: 'system',
      action: 'key.created',
      targetType: 'key',
      targetId: 'key_old',
    };
    await s.svc.db.insert(auditLog).values([
      { ...old, at: new Date(Date.now() - 100 * 86_400_000) },
      { ...old, id: newTimeOrderedId('aud'), targetId: 'key_recent', at: new Date(Date.now() - 60 * 86_400_000) },
    ]);
    // b is on pro (90 days): the 60-day-old entry is listed, the 100-day-old one is not.
    expect((await list(b.apiKey, '?target_type=key')).data.map((e) => e.target.id)).toEqual(['key_recent']);
    expect(await purgeExpiredAuditEntries(s.svc)).toBeGreaterThanOrEqual(1);
    expect((await rowsOf(b.tenantId)).map((r) => r.targetId)).not.toContain('key_old');
    expect((await rowsOf(b.tenantId)).map((r) => r.targetId)).toContain('key_recent');
    await s.setPlan(b.tenantId, 'free');
    expect((await list(b.apiKey, '?target_type=key')).data).toEqual([]);
    await purgeExpiredAuditEntries(s.svc);
    expect((await rowsOf(b.tenantId)).map((r) => r.targetId)).not.toContain('key_recent');
    expect(await purgeExpiredAuditEntries(s.svc)).toBe(0);
  });

  it('CSV: the filtered entries as RFC 4180 text/csv, formula cells guarded; ?format=csv the same', async () => {
    const t = await proTenant();
    for (const name of ['=HYPERLINK("x")', 'plain, "quoted"', '@sum']) {
      expect((await as(t.apiKey, '/api/v1/keys', { body: { name, scopes: ['modules:read'] } })).status).toBe(201);
    }
    const res = await s.call('/api/v1/audit-log.csv?action=key.*', { key: t.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get('x-next-cursor')).toBeNull();
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual([
      'id',
      'at',
      'actor_type',
      'actor_id',
      'actor_email',
      'action',
      'target_type',
      'target_id',
      'ip',
      'user_agent',
      'request_id',
      'changes',
    ]);
    expect(rows).toHaveLength(4);
    const names = rows.slice(1).map((r) => JSON.parse(r[11]!).name);
    expect(names).toEqual(['@sum', 'plain, "quoted"', '=HYPERLINK("x")']);
    expect(rows.slice(1).every((r) => r[5] === 'key.created' && r[2] === 'key')).toBe(true);
    const json = await list(t.apiKey, '?action=key.*');
    expect(rows.slice(1).map((r) => r[0])).toEqual(json.data.map((e) => e.id));

    const same = await s.call('/api/v1/audit-log?action=key.*&format=csv', { key: t.apiKey });
    expect(same.status).toBe(200);
    expect(parseCsv(same.text).map((r) => r[0])).toEqual(rows.map((r) => r[0]));

    // A limited export says where the next one starts.
    const first = await s.call('/api/v1/audit-log.csv?limit=2', { key: t.apiKey });
    const next = first.headers.get('x-next-cursor');
    expect(parseCsv(first.text)).toHaveLength(3);
    expect(next).not.toBeNull();
    const rest = await s.call(`/api/v1/audit-log.csv?cursor=${next}`, { key: t.apiKey });
    expect(parseCsv(rest.text).length - 1 + 2).toBe((await list(t.apiKey, '?limit=100')).data.length);

    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@x')).toBe("'@x");
    expect(csvCell('=a,b')).toBe(`"'=a,b"`);
    expect(csvCell('a"b')).toBe('"a""b"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell(null)).toBe('');
  });

  it('operators list every tenant with their own actions, filtered by tenant; tenants cannot', async () => {
    const a = await proTenant();
    const b = await proTenant();
    const res = await s.call(`/api/v1/admin/audit-log?tenant_id=${a.tenantId}`, { headers: admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((e: any) => e.action)).toEqual(['tenant.plan_set', 'tenant.created']);
    expect(res.body.data.every((e: any) => e.tenant_id === a.tenantId)).toBe(true);
    expect(res.body.data[0].actor).toEqual({ type: 'operator', id: 'admin_token' });

    const ops = await s.call('/api/v1/admin/audit-log?actor=admin_token&action=tenant.*&limit=100', { headers: admin });
    const tenantsSeen = new Set(ops.body.data.map((e: any) => e.tenant_id));
    expect(tenantsSeen.has(a.tenantId) && tenantsSeen.has(b.tenantId)).toBe(true);

    const page = await s.call('/api/v1/admin/audit-log?limit=1', { headers: admin });
    expect(page.body.has_more).toBe(true);
    const second = await s.call(`/api/v1/admin/audit-log?limit=1&cursor=${page.body.next_cursor}`, { headers: admin });
    expect(second.body.data[0].id).not.toBe(page.body.data[0].id);

    expectError(await s.call('/api/v1/admin/audit-log', { key: a.apiKey }), 401, 'unauthorized');
    expectError(await s.call('/api/v1/admin/audit-log?tenant_id=nope', { headers: admin }), 400, 'invalid_request');
  });
  // Last: closing the cycle early invoices every pro tenant of this server.
  it('invoices: created (by the operator closing the cycle), paid and voided by an operator', async () => {
    const t = await proTenant();
    const now = new Date();
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    const closed = await s.call('/api/v1/admin/billing/close', { headers: admin, body: { at } });
    expect(closed.status, closed.text).toBe(200);
    const invoice = closed.body.invoices.find((i: any) => i.tenant_id === t.tenantId);
    expect(invoice).toBeDefined();
    const created = await expectOne(t.tenantId, 'invoice.created', invoice.id, closed);
    expect(created).toMatchObject({ actorType: 'operator', actorId: 'admin_token' });
    expect(created.changes).toMatchObject({ number: invoice.number, total_usd: invoice.total_usd });

    const paid = await s.call(`/api/v1/admin/invoices/${invoice.id}/pay`, { method: 'POST', headers: admin });
    expect(paid.status, paid.text).toBe(200);
    expect((await expectOne(t.tenantId, 'invoice.paid', invoice.id, paid)).changes).toMatchObject({ status: { from: 'open', to: 'paid' } });
    // Refused (not open): no entry.
    expectError(await s.call(`/api/v1/admin/invoices/${invoice.id}/void`, { method: 'POST', headers: admin }), 409, 'conflict');
    expect(await rowsOf(t.tenantId, 'invoice.voided')).toHaveLength(0);
    const listed = await list(t.apiKey, '?action=invoice.*');
    expect(listed.data.map((e) => e.action)).toEqual(['invoice.paid', 'invoice.created']);
  });
});
