/**
 * Members, roles and invitations (docs/organizations.md) over REST with real bearer tokens of the
 * built-in identity provider (supabase-js), on both backends: the role matrix, invitations
 * (accept, reuse, expiry, revocation, another email), seats, removal taking effect on the next
 * request, X-Tenant-Id, leaving and the ownership transfer; each leaves its audit entry.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from '@supabase/supabase-js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditLog, memberInvitations } from '../../src/db/schema';
import { backends, expectError, startTestServer, type ApiResponse, type TestServer } from '../harness';

const PASSWORD = 'correct horse battery';
const newEmail = (who: string) => `${who}-${randomBytes(4).toString('hex')}@example.com`;

interface User {
  email: string;
  token: string;
  userId: string;
}

async function signUp(s: TestServer, who: string): Promise<User> {
  const sb = createClient(s.url, s.config.auth.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  const email = newEmail(who);
  const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  return { email, token: data.session!.access_token, userId: data.user!.id };
}

const tokenOf = (acceptUrl: string) => new URL(acceptUrl).pathname.split('/').pop()!;

backends.describe('members and roles (%s)', (backend) => {
  let s: TestServer;
  let receiver: Server;
  let hookUrl: string;
  let owner: User;
  let tenantId: string;
  let ownerKey: string;
  const as = (u: User, path: string, o: Parameters<TestServer['call']>[1] = {}) => s.call(path, { ...o, bearer: u.token });

  async function invite(u: User, role: string): Promise<ApiResponse> {
    const res = await as(owner, '/api/v1/members/invitations', { body: { email: u.email, role } });
    expect(res.status, res.text).toBe(201);
    return res;
  }

  async function join(u: User, role: string): Promise<void> {
    const sent = await invite(u, role);
    const accepted = await as(u, `/api/v1/members/invitations/${tokenOf(sent.body.accept_url)}/accept`, { method: 'POST' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toEqual({ tenant_id: tenantId, role });
  }

  const auditCount = async (action: string) =>
    (
      await s.svc.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, action)))
    ).length;

  beforeAll(async () => {
    s = await startTestServer({ backend, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    receiver = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    owner = await signUp(s, 'owner');
    const created = await as(owner, '/api/v1/auth/register', { body: {} });
    expect(created.status, created.text).toBe(201);
    tenantId = created.body.tenant_id;
    ownerKey = created.body.api_key;
  });
  afterAll(async () => {
    receiver?.close();
    await s?.close();
  });

  it('the creator is the owner; roles are listed; the free plan has one seat', async () => {
    const members = await as(owner, '/api/v1/members');
    expect(members.status).toBe(200);
    expect(members.body.data).toEqual([{ user_id: owner.userId, email: owner.email, role: 'owner', joined_at: expect.any(String) }]);
    const roles = await as(owner, '/api/v1/members/roles');
    expect(roles.body.data.map((r: { role: string }) => r.role)).toEqual(['owner', 'admin', 'developer', 'billing', 'viewer']);
    expect(roles.body.data[0]).toMatchObject({ scopes: ['*'], assignable: false });

    const refused = expectError(
      await as(owner, '/api/v1/members/invitations', { body: { email: newEmail('x'), role: 'viewer' } }),
      403,
      'plan_required',
    );
    expect(refused.required_plan).toBe('pro');
    expectError(await as(owner, '/api/v1/members/invitations', { body: { email: newEmail('x'), role: 'owner' } }), 400, 'invalid_request');
    expectError(
      await as(owner, '/api/v1/members/invitations', { body: { email: 'not-an-email', role: 'viewer' } }),
      400,
      'invalid_request',
    );
    await s.setPlan(tenantId, 'pro');
  });

  it('invitations: accepted once by the invited email only; expired, revoked and reused links are refused', async () => {
    const bob = await signUp(s, 'bob');
    const mallory = await signUp(s, 'mallory');
    const sent = await invite(bob, 'viewer');
    expect(sent.body).toMatchObject({ email: bob.email, role: 'viewer', id: expect.stringMatching(/^invite_/) });
    expect(sent.body.accept_url).toMatch(/\/invitations\/amp_inv_[0-9A-Za-z]{40}$/);
    // A second invitation names the pending one in a field; its message, shown to people, names no id.
    const again = expectError(
      await as(owner, '/api/v1/members/invitations', { body: { email: bob.email, role: 'admin' } }),
      409,
      'conflict',
    );
    expect(again).toMatchObject({ invitation_id: sent.body.id, message: `${bob.email} has a pending invitation: resend or revoke it.` });
    const listed = await as(owner, '/api/v1/members/invitations');
    expect(listed.body.data).toEqual([expect.objectContaining({ id: sent.body.id, email: bob.email, status: 'pending' })]);
    expect(listed.text).not.toContain(tokenOf(sent.body.accept_url));

    const token = tokenOf(sent.body.accept_url);
    // The link describes itself to whoever holds it (the accept page, before signing in).
    const looked = await s.call(`/api/v1/invitations/${token}`);
    expect(looked.body).toMatchObject({
      kind: 'join',
      tenant_id: tenantId,
      email: bob.email,
      role: 'viewer',
      invited_by: owner.email,
      status: 'pending',
    });
    expectError(await s.call(`/api/v1/invitations/amp_inv_${'y'.repeat(40)}`), 404, 'not_found');
    const wrong = expectError(await as(mallory, `/api/v1/members/invitations/${token}/accept`, { method: 'POST' }), 403, 'forbidden');
    expect(wrong.reason).toBe('email_mismatch');
    expectError(await s.call(`/api/v1/members/invitations/${token}/accept`, { method: 'POST' }), 401, 'unauthorized');
    expectError(await as(bob, `/api/v1/members/invitations/amp_inv_${'x'.repeat(40)}/accept`, { method: 'POST' }), 404, 'not_found');
    expect((await as(bob, `/api/v1/members/invitations/${token}/accept`, { method: 'POST' })).status).toBe(200);
    const reused = expectError(await as(bob, `/api/v1/members/invitations/${token}/accept`, { method: 'POST' }), 409, 'conflict');
    expect(reused.reason).toBe('invitation_used');
    expect((await as(bob, '/api/v1/me')).body.tenant_id).toBe(tenantId);
    expect(await auditCount('member.joined')).toBe(1);
    expect((await s.call(`/api/v1/invitations/${token}`)).body.status).toBe('used');

    // Expired.
    const late = await signUp(s, 'late');
    const expiring = await invite(late, 'developer');
    await s.svc.db
      .update(memberInvitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(memberInvitations.id, expiring.body.id));
    const expired = expectError(
      await as(late, `/api/v1/members/invitations/${tokenOf(expiring.body.accept_url)}/accept`, { method: 'POST' }),
      409,
      'conflict',
    );
    expect(expired.reason).toBe('invitation_expired');
    expect((await as(owner, '/api/v1/members/invitations')).body.data).toContainEqual(
      expect.objectContaining({ id: expiring.body.id, status: 'expired' }),
    );
    // Resent: a new link, the old one dead.
    const resent = await as(owner, `/api/v1/members/invitations/${expiring.body.id}/resend`, { method: 'POST' });
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.accept_url).not.toBe(expiring.body.accept_url);
    // Revoked: the link is gone.
    expect((await as(owner, `/api/v1/members/invitations/${expiring.body.id}`, { method: 'DELETE' })).body).toEqual({
      id: expiring.body.id,
      revoked: true,
    });
    expectError(
      await as(late, `/api/v1/members/invitations/${tokenOf(resent.body.accept_url)}/accept`, { method: 'POST' }),
      404,
      'not_found',
    );
    expectError(await as(late, '/api/v1/me'), 401, 'unauthorized');
    expect(await auditCount('member.invited')).toBe(2);
    expect(await auditCount('member.invitation_revoked')).toBe(1);
    expect(await auditCount('member.invitation_resent')).toBe(1);
  });

  it('the role matrix: every role is allowed exactly what the roles table says, or 403 insufficient_scope', async () => {
    await s.setPlan(tenantId, 'business');
    const people: Record<string, User> = {};
    for (const role of ['admin', 'developer', 'billing', 'viewer']) {
      people[role] = await signUp(s, role);
      await join(people[role], role);
    }
    people.owner = owner;
    const webhook = await s.call('/api/v1/webhooks', { key: ownerKey, body: { url: hookUrl, events: ['execution.completed'] } });
    expect(webhook.status, webhook.text).toBe(201);

    type Op = [name: string, path: string, opts: { method?: string; body?: unknown }, allowed: string[]];
    const ops: Op[] = [
      ['list modules', '/api/v1/modules', {}, ['owner', 'admin', 'developer', 'viewer']],
      ['execute', '/api/v1/modules/crypto/execute', { body: { action: 'uuid', input: {} } }, ['owner', 'admin', 'developer']],
      ['list keys', '/api/v1/keys', {}, ['owner', 'admin', 'developer', 'viewer']],
      ['create a key', '/api/v1/keys', { body: { name: 'k', scopes: ['modules:read'] } }, ['owner', 'admin', 'developer']],
      ['list webhooks', '/api/v1/webhooks', {}, ['owner', 'admin', 'developer', 'viewer']],
      [
        'update a webhook',
        `/api/v1/webhooks/${webhook.body.id}`,
        { method: 'PUT', body: { events: ['execution.completed', 'execution.failed'] } },
        ['owner', 'admin', 'developer'],
      ],
      ['read memory', '/api/v1/memory?agent_id=a', {}, ['owner', 'admin', 'developer', 'viewer']],
      ['write memory', '/api/v1/memory', { body: { agent_id: 'a', key: 'k', value: 1 } }, ['owner', 'admin', 'developer']],
      ['usage', '/api/v1/billing/usage', {}, ['owner', 'admin', 'billing', 'viewer']],
      ['invoices', '/api/v1/billing/invoices', {}, ['owner', 'admin', 'billing', 'viewer']],
      ['change the plan', '/api/v1/billing/plan', { method: 'PUT', body: { plan: 'business' } }, ['owner', 'billing']],
      ['list members', '/api/v1/members', {}, ['owner', 'admin', 'viewer']],
      ['invite', '/api/v1/members/invitations', { body: { email: 'someone@example.com', role: 'viewer' } }, ['owner', 'admin']],
      ['me', '/api/v1/me', {}, ['owner', 'admin', 'developer', 'billing', 'viewer']],
    ];
    const seen: string[] = [];
    for (const [name, path, opts, allowed] of ops) {
      for (const role of ['owner', 'admin', 'developer', 'billing', 'viewer']) {
        const res = await as(people[role]!, path, opts);
        if (allowed.includes(role)) {
          seen.push(`${name} as ${role}: ${res.status < 400 || res.status === 409 ? 'allowed' : `${res.status} ${res.text}`}`);
          if (name === 'invite' && res.status === 201) await as(owner, `/api/v1/members/invitations/${res.body.id}`, { method: 'DELETE' });
        } else {
          const body = res.body;
          seen.push(
            `${name} as ${role}: ${res.status === 403 && body.error === 'insufficient_scope' && typeof body.required_scope === 'string' ? 'refused' : `${res.status} ${res.text}`}`,
          );
        }
      }
    }
    const expected = ops.flatMap(([name, , , allowed]) =>
      ['owner', 'admin', 'developer', 'billing', 'viewer'].map(
        (role) => `${name} as ${role}: ${allowed.includes(role) ? 'allowed' : 'refused'}`,
      ),
    );
    expect(seen).toEqual(expected);

    // The same roles on every surface: MCP (the SDK's client), tRPC and A2A.
    const mcpAs = async (u: User) => {
      const client = new Client({ name: 'members-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${u.token}` } },
        }),
      );
      return client;
    };
    const viewerMcp = await mcpAs(people.viewer!);
    expect((await viewerMcp.listTools()).tools.length).toBeGreaterThan(0);
    const refusedCall = await viewerMcp.callTool({ name: 'crypto__uuid', arguments: {} }).catch((e: unknown) => e);
    expect(refusedCall).toBeInstanceOf(McpError);
    expect((refusedCall as McpError).code).toBe(-32003);
    await viewerMcp.close();
    const devMcp = await mcpAs(people.developer!);
    expect((await devMcp.callTool({ name: 'crypto__uuid', arguments: {} })).isError).toBeFalsy();
    await devMcp.close();
    const trpcCreate = await as(people.viewer!, '/api/trpc/keys.create', { body: { name: 'k', scopes: ['modules:read'] } });
    expect(trpcCreate.status).toBe(403);
    expect(trpcCreate.body.error.data.app).toMatchObject({ error: 'insufficient_scope', required_scope: 'keys:manage' });
    const a2a = await as(people.billing!, '/api/a2a', {
      body: { jsonrpc: '2.0', id: 1, method: 'message/send', params: {} },
    });
    expectError(a2a, 403, 'insufficient_scope');

    // A member creates keys only within its role.
    const dev = people.developer!;
    expect(
      expectError(await as(dev, '/api/v1/keys', { body: { name: 'wide', scopes: ['*'] } }), 403, 'insufficient_scope').required_scope,
    ).toBe('*');
    expectError(await as(dev, '/api/v1/keys', { body: { name: 'billing', scopes: ['billing:read'] } }), 403, 'insufficient_scope');
    expectError(await as(people.admin!, '/api/v1/keys', { body: { name: 'wide', scopes: ['*'] } }), 403, 'insufficient_scope');
    // ... and cannot rotate a wider key into its hands.
    const keys = await as(owner, '/api/v1/keys');
    const primary = keys.body.data.find((k: { scopes: string[] }) => k.scopes.includes('*'));
    expectError(await as(dev, `/api/v1/keys/${primary.key_id}/rotate`, { method: 'POST' }), 403, 'insufficient_scope');
    // The viewer sees keys, never a secret.
    const seenByViewer = await as(people.viewer!, '/api/v1/keys');
    expect(seenByViewer.text).not.toMatch(/amp_[A-Za-z0-9]{20,}/);

    // Role changes take effect at once; the owner's role is not for changing.
    const changed = await as(owner, `/api/v1/members/${people.viewer!.userId}`, { method: 'PATCH', body: { role: 'developer' } });
    expect(changed.body).toMatchObject({ user_id: people.viewer!.userId, role: 'developer' });
    expect((await as(people.viewer!, '/api/v1/modules/crypto/execute', { body: { action: 'uuid', input: {} } })).status).toBe(200);
    expectError(
      await as(people.admin!, `/api/v1/members/${owner.userId}`, { method: 'PATCH', body: { role: 'viewer' } }),
      403,
      'forbidden',
    );
    expectError(await as(owner, `/api/v1/members/${owner.userId}`, { method: 'PATCH', body: { role: 'owner' } }), 400, 'invalid_request');
    expectError(await as(owner, '/api/v1/members/nobody', { method: 'PATCH', body: { role: 'viewer' } }), 404, 'not_found');
    expect(await auditCount('member.role_changed')).toBe(1);

    // Removal: the member's next request no longer acts for the tenant.
    expect((await as(people.admin!, `/api/v1/members/${people.billing!.userId}`, { method: 'DELETE' })).body).toEqual({
      user_id: people.billing!.userId,
      removed: true,
    });
    expectError(await as(people.billing!, '/api/v1/billing/usage'), 401, 'unauthorized');
    expectError(await as(people.billing!, '/api/v1/me', { headers: { 'x-tenant-id': tenantId } }), 404, 'not_found');
    expectError(await as(people.admin!, `/api/v1/members/${owner.userId}`, { method: 'DELETE' }), 403, 'forbidden');
    const removal = await s.svc.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'member.removed')));
    expect(removal).toHaveLength(1);
    expect(removal[0]).toMatchObject({
      actorType: 'user',
      actorId: people.admin!.userId,
      actorEmail: people.admin!.email,
      targetId: people.billing!.userId,
    });
    expect(removal[0]!.requestId).toMatch(/^req_/);

    // An API key reaches members only through `*`, and cannot leave.
    const narrow = await s.call('/api/v1/keys', { key: ownerKey, body: { name: 'narrow', scopes: ['keys:manage'] } });
    expectError(await s.call('/api/v1/members', { key: narrow.body.api_key }), 403, 'insufficient_scope');
    expect((await s.call('/api/v1/members', { key: ownerKey })).status).toBe(200);
    expectError(await s.call('/api/v1/members/leave', { key: ownerKey, method: 'POST' }), 403, 'forbidden');

    // Leaving.
    expectError(await as(owner, '/api/v1/members/leave', { method: 'POST' }), 403, 'forbidden');
    expect((await as(people.viewer!, '/api/v1/members/leave', { method: 'POST' })).body).toEqual({ tenant_id: tenantId, left: true });
    expectError(await as(people.viewer!, '/api/v1/me'), 401, 'unauthorized');
    expect(await auditCount('member.left')).toBe(1);
  });

  it.skipIf(backend !== 'postgres')('a removal takes effect on the next request on every instance', async () => {
    const second = await startTestServer({ backend, databaseUrl: s.config.databaseUrl, dataDir: s.config.dataDir });
    try {
      const leaving = await signUp(s, 'leaving');
      await join(leaving, 'viewer');
      const onSecond = (path: string) => second.call(path, { bearer: leaving.token, headers: { 'x-tenant-id': tenantId } });
      expect((await onSecond('/api/v1/members')).status).toBe(200);
      expect((await as(owner, `/api/v1/members/${leaving.userId}`, { method: 'DELETE' })).status).toBe(200);
      expectError(await onSecond('/api/v1/members'), 404, 'not_found');
      expectError(await second.call('/api/v1/me', { bearer: leaving.token }), 401, 'unauthorized');
    } finally {
      await second.close();
    }
  });

  it('a member of several tenants picks one with X-Tenant-Id; another tenant is 404', async () => {
    const other = await signUp(s, 'other-owner');
    const otherTenant = (await as(other, '/api/v1/auth/register', { body: {} })).body.tenant_id;
    const multi = await signUp(s, 'multi');
    await join(multi, 'developer');
    await s.setPlan(otherTenant, 'pro');
    const sent = await as(other, '/api/v1/members/invitations', { body: { email: multi.email, role: 'viewer' } });
    await as(multi, `/api/v1/members/invitations/${tokenOf(sent.body.accept_url)}/accept`, { method: 'POST' });
    expect((await as(multi, '/api/v1/me')).body.tenant_id).toBe(tenantId);
    const me = await as(multi, '/api/v1/members/me', { headers: { 'x-tenant-id': otherTenant } });
    expect(me.body).toMatchObject({ tenant_id: otherTenant, kind: 'member', user_id: multi.userId, role: 'viewer', key_id: null });
    expect(me.body.memberships.map((m: { tenant_id: string; role: string }) => [m.tenant_id, m.role])).toEqual([
      [tenantId, 'developer'],
      [otherTenant, 'viewer'],
    ]);
    expect((await s.call('/api/v1/members/me', { key: ownerKey })).body).toMatchObject({
      kind: 'api_key',
      role: null,
      scopes: ['*'],
      memberships: [],
    });
    expect((await as(multi, '/api/v1/me', { headers: { 'x-tenant-id': otherTenant } })).body.tenant_id).toBe(otherTenant);
    // The viewer role there: no execution.
    expectError(
      await as(multi, '/api/v1/modules/crypto/execute', { headers: { 'x-tenant-id': otherTenant }, body: { action: 'uuid', input: {} } }),
      403,
      'insufficient_scope',
    );
    const stranger = await s.register();
    const foreign = expectError(await as(multi, '/api/v1/keys', { headers: { 'x-tenant-id': stranger.tenantId } }), 404, 'not_found');
    expect(foreign.reason).toBe('not_a_member');
    // Tenant A's owner sees nothing of tenant B's members.
    expect((await as(owner, '/api/v1/members')).text).not.toContain(other.email);
  });

  it('ownership moves only when the new owner confirms; the old owner becomes an admin', async () => {
    const heir = await signUp(s, 'heir');
    await join(heir, 'admin');
    expectError(await as(heir, '/api/v1/members/transfer-ownership', { body: { user_id: heir.userId } }), 403, 'forbidden');
    expectError(await s.call('/api/v1/members/transfer-ownership', { key: ownerKey, body: { user_id: heir.userId } }), 403, 'forbidden');
    const offer = await as(owner, '/api/v1/members/transfer-ownership', { body: { user_id: heir.userId } });
    expect(offer.status, offer.text).toBe(202);
    expect(offer.body).toMatchObject({ to_user_id: heir.userId, status: 'pending' });
    const token = new URL(offer.body.confirm_url).pathname.split('/').pop()!;
    // Nothing changed yet; only the heir may confirm.
    expect((await as(owner, '/api/v1/billing/plan', { method: 'PUT', body: { plan: 'business' } })).status).toBe(200);
    expect((await s.call(`/api/v1/invitations/${token}`)).body).toMatchObject({
      kind: 'ownership_transfer',
      role: 'owner',
      email: heir.email,
    });
    expectError(await as(owner, '/api/v1/members/transfer-ownership/accept', { body: { token } }), 403, 'forbidden');
    expectError(await s.call('/api/v1/members/transfer-ownership/accept', { key: ownerKey, body: { token } }), 401, 'unauthorized');
    const done = await as(heir, '/api/v1/members/transfer-ownership/accept', { body: { token } });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toEqual({ tenant_id: tenantId, owner_user_id: heir.userId, previous_owner_user_id: owner.userId });
    const roles = Object.fromEntries(
      (await as(heir, '/api/v1/members?limit=100')).body.data.map((m: { user_id: string; role: string }) => [m.user_id, m.role]),
    );
    expect(roles[heir.userId]).toBe('owner');
    expect(roles[owner.userId]).toBe('admin');
    expectError(await as(owner, '/api/v1/billing/plan', { method: 'PUT', body: { plan: 'business' } }), 403, 'insufficient_scope');
    expectError(await as(heir, '/api/v1/members/transfer-ownership/accept', { body: { token } }), 409, 'conflict');
    expect(await auditCount('ownership.transferred')).toBe(1);
  });
});
