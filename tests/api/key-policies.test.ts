/**
 * Key policies (docs/policies.md): setting, merging and clearing a key's policy, and its rules
 * on every surface that runs a module — REST execute, batch, chain, A2A and workflow steps — plus
 * the credential's own rules at admission (expiry, client addresses, the key's request pool).
 * Both backends; on PostgreSQL+Redis also two instances sharing one database and Redis.
 */
import { eq } from 'drizzle-orm';
import { Role, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitionHash } from '../../src/catalog/definition-hash';
import { findVisibleModule } from '../../src/catalog/queries';
import { apiKeys, modules } from '../../src/db/schema';
import { backends, expectError, missing, startTestServer, type ApiResponse, type TestServer } from '../harness';
import { freePort } from '../ports';

type Policy = Record<string, unknown>;
interface Tenant {
  apiKey: string;
  tenantId: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it gives a value (no timing is asserted: the deadline only ends a hung test). */
async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

function expectDenied(res: ApiResponse, rule: string, reason: string) {
  const body = expectError(res, 403, 'policy_denied');
  expect(body).toMatchObject({ rule, reason });
  return body;
}

/** Calls on one server: tenants with the pro plan (keys beyond the primary), their keys, executions. */
function clientOf(s: TestServer) {
  const exec = (key: string, module: string, action: string, input: unknown) =>
    s.call(`/api/v1/modules/${module}/execute`, { key, body: { action, input } });
  return {
    async proTenant(): Promise<Tenant> {
      const t = await s.register();
      await s.setPlan(t.tenantId, 'pro');
      return t;
    },
    /** A key of `t` with `policy` (and `scopes`): its id and secret. */
    async agentKey(t: Tenant, policy?: Policy, scopes?: string[]) {
      const res = await s.call('/api/v1/keys', {
        key: t.apiKey,
        body: { name: 'agent', ...(policy ? { policy } : {}), ...(scopes ? { scopes } : {}) },
      });
      expect(res.status, res.text).toBe(201);
      return { keyId: res.body.key_id as string, secret: res.body.api_key as string, created: res.body };
    },
    setPolicy: (t: Tenant, keyId: string, patch: unknown) =>
      s.call(`/api/v1/keys/${keyId}/policy`, { key: t.apiKey, method: 'PUT', body: patch }),
    exec,
    slugify: (key: string) => exec(key, 'text', 'slugify', { text: 'Hello Policy' }),
    evaluate: (key: string) => exec(key, 'math', 'evaluate', { expression: '6 * 7' }),
    round: (key: string) => exec(key, 'math', 'round', { value: 1.234, decimals: 1 }),
    hash: (key: string) => exec(key, 'crypto', 'hash', { text: 'abc', algorithm: 'sha256' }),
    /** The tenant's recorded executions (read with its primary key). */
    async executionIds(t: Tenant): Promise<string[]> {
      const res = await s.call('/api/v1/executions?limit=100', { key: t.apiKey });
      expect(res.status, res.text).toBe(200);
      return res.body.data.map((e: { execution_id: string }) => e.execution_id);
    },
    async remaining(key: string): Promise<string | null> {
      return (await s.call('/api/v1/me', { key })).headers.get('x-execution-remaining');
    },
  };
}

backends.describe('key policies (%s)', (backend) => {
  let s: TestServer;
  let c: ReturnType<typeof clientOf>;
  beforeAll(async () => {
    const port = await freePort();
    s = await startTestServer({ backend, env: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    c = clientOf(s);
  }, 120_000);
  afterAll(async () => s?.close());

  describe('setting a policy', () => {
    it('is given on creation and answered by GET /keys/{id}; PUT merges: a field given replaces, null clears, absent stays', async () => {
      const t = await c.proTenant();
      const { keyId, created } = await c.agentKey(t, { modules: ['text', 'text'], min_trust_score: 10 });
      expect(created.policy).toEqual({ modules: ['text'], min_trust_score: 10 });
      const got = await s.call(`/api/v1/keys/${keyId}`, { key: t.apiKey });
      expect(got.status, got.text).toBe(200);
      expect(got.body).toMatchObject({ key_id: keyId, primary: false, policy: { modules: ['text'], min_trust_score: 10 } });

      const added = await c.setPolicy(t, keyId, { actions: ['math.evaluate', 'crypto.*'], ip_allow: ['127.0.0.1/32'] });
      expect(added.status, added.text).toBe(200);
      expect(added.body).toMatchObject({ key_id: keyId, name: 'agent' });
      expect(added.body.policy).toEqual({
        modules: ['text'],
        min_trust_score: 10,
        actions: ['math.evaluate', 'crypto.*'],
        ip_allow: ['127.0.0.1/32'],
      });

      const replaced = await c.setPolicy(t, keyId, { modules: ['json'], min_trust_score: null, ip_allow: null });
      expect(replaced.body.policy).toEqual({ modules: ['json'], actions: ['math.evaluate', 'crypto.*'] });
      expect((await s.call(`/api/v1/keys/${keyId}`, { key: t.apiKey })).body.policy).toEqual(replaced.body.policy);

      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const more = await c.setPolicy(t, keyId, { expires_at: expiresAt, requests_per_minute: 100, min_trust_tier: 'silver' });
      expect(more.body.policy).toMatchObject({ expires_at: expiresAt, requests_per_minute: 100, min_trust_tier: 'silver' });
      // An empty patch changes nothing.
      expect((await c.setPolicy(t, keyId, {})).body.policy).toEqual(more.body.policy);

      const cleared = await c.setPolicy(t, keyId, {
        modules: null,
        actions: null,
        expires_at: null,
        requests_per_minute: null,
        min_trust_tier: null,
      });
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.body.policy).toBeNull();
      expect((await s.call(`/api/v1/keys/${keyId}`, { key: t.apiKey })).body.policy).toBeNull();
      // The key list shows the policy too; the primary key has none.
      const list = await s.call('/api/v1/keys', { key: t.apiKey });
      expect(list.body.data.every((k: { policy: unknown }) => k.policy === null)).toBe(true);
    });

    it('refuses a bad CIDR, a past expiry, an unknown field and a malformed action with 400, changing nothing', async () => {
      const t = await c.proTenant();
      const { keyId } = await c.agentKey(t, { modules: ['text'] });
      const bad: [string, unknown][] = [
        ['ip_allow', { ip_allow: ['10.0.0.0/33'] }],
        ['ip_allow', { ip_allow: ['not-an-address'] }],
        ['ip_allow', { ip_allow: ['10.0.0.0/8/1'] }],
        ['ip_allow', { ip_allow: [] }],
        ['expires_at', { expires_at: new Date(Date.now() - 60_000).toISOString() }],
        ['expires_at', { expires_at: 'tomorrow' }],
        ['', { modules: ['text'], max_calls: 5 }],
        ['actions', { actions: ['text'] }],
        ['actions', { actions: ['text.*.*'] }],
        ['actions', { actions: ['Text.slugify'] }],
        ['actions', { actions: ['*'] }],
        ['min_trust_tier', { min_trust_tier: 'platinum' }],
        ['min_trust_score', { min_trust_score: 101 }],
        ['pins', { pins: { text: 'md5:abc' } }],
        ['requests_per_minute', { requests_per_minute: 0 }],
      ];
      for (const [field, patch] of bad) {
        const body = expectError(await c.setPolicy(t, keyId, patch), 400, 'invalid_request');
        if (field)
          expect(
            body.issues.map((i: { path: string }) => i.path.split('.')[0]),
            JSON.stringify(patch),
          ).toContain(field);
      }
      expect((await s.call(`/api/v1/keys/${keyId}`, { key: t.apiKey })).body.policy).toEqual({ modules: ['text'] });
      // The same rules on creation: no key is made.
      expectError(
        await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'x', policy: { ip_allow: ['300.1.1.1'] } } }),
        400,
        'invalid_request',
      );
      expectError(await s.call('/api/v1/keys', { key: t.apiKey, body: { name: 'x', policy: { colour: 'red' } } }), 400, 'invalid_request');
      expect((await s.call('/api/v1/keys', { key: t.apiKey })).body.data).toHaveLength(2);
    });

    it("another tenant's key is 404 to GET and PUT; a key without keys:manage cannot set policies", async () => {
      const a = await c.proTenant();
      const b = await c.proTenant();
      const { keyId, secret } = await c.agentKey(a, { modules: ['text'] });
      expectError(await s.call(`/api/v1/keys/${keyId}`, { key: b.apiKey }), 404, 'not_found');
      expectError(await c.setPolicy(b, keyId, { modules: null }), 404, 'not_found');
      expectError(await c.setPolicy(a, 'key_doesnotexist', { modules: null }), 404, 'not_found');
      expectError(
        await s.call(`/api/v1/keys/${keyId}/policy`, { key: secret, method: 'PUT', body: { modules: null } }),
        403,
        'insufficient_scope',
      );
      expect((await s.call(`/api/v1/keys/${keyId}`, { key: a.apiKey })).body.policy).toEqual({ modules: ['text'] });
    });
  });

  describe('calls (REST execute)', () => {
    it('modules and actions allow their union; module.* allows every action of a module', async () => {
      const t = await c.proTenant();
      const { secret: both } = await c.agentKey(t, { modules: ['text'], actions: ['math.evaluate'] });
      expect((await c.slugify(both)).status).toBe(200);
      expect((await c.evaluate(both)).status).toBe(200);
      const round = expectDenied(await c.round(both), 'modules', 'module_not_allowed');
      expect(round.message).toContain('math.round');
      expectDenied(await c.hash(both), 'modules', 'module_not_allowed');

      const { secret: actionsOnly } = await c.agentKey(t, { actions: ['crypto.*', 'math.evaluate'] });
      expect((await c.hash(actionsOnly)).status).toBe(200);
      expect((await c.evaluate(actionsOnly)).status).toBe(200);
      expectDenied(await c.round(actionsOnly), 'actions', 'module_not_allowed');
      expectDenied(await c.slugify(actionsOnly), 'actions', 'module_not_allowed');

      // An empty allow list allows nothing; an unknown module is still 404, not a refusal.
      const { secret: nothing } = await c.agentKey(t, { modules: [] });
      expectDenied(await c.slugify(nothing), 'modules', 'module_not_allowed');
      expectError(await c.exec(nothing, 'no-such-module', 'run', {}), 404, 'not_found');
      // Without allow lists everything may be called.
      const { secret: open } = await c.agentKey(t, { min_trust_score: 0 });
      expect((await c.round(open)).status).toBe(200);
    });

    it('a refusal is not an execution: nothing is recorded and X-Execution-Remaining does not move', async () => {
      const t = await c.proTenant();
      const { secret } = await c.agentKey(t, { modules: ['text'] });
      expect((await c.slugify(secret)).status).toBe(200);
      const before = await c.executionIds(t);
      const remaining = await c.remaining(t.apiKey);
      expect(before).toHaveLength(1);
      const refused = await c.evaluate(secret);
      expectDenied(refused, 'modules', 'module_not_allowed');
      expect(refused.headers.get('x-execution-remaining')).toBe(remaining);
      expect(await c.executionIds(t)).toEqual(before);
      expect(await c.remaining(t.apiKey)).toBe(remaining);
    });

    it('min_trust_tier refuses a module certified below it (trust_below_minimum) and allows one at or above', async () => {
      const t = await c.proTenant();
      const catalog = await s.call('/api/v1/modules?limit=100', { key: t.apiKey });
      const tierOf = (name: string) => catalog.body.data.find((m: { name: string }) => m.name === name).certification_tier;
      expect(tierOf('text')).toBe('none');
      const { keyId, secret } = await c.agentKey(t, { min_trust_tier: 'bronze' });
      const refused = expectDenied(await c.slugify(secret), 'min_trust_tier', 'trust_below_minimum');
      expect(refused.message).toContain('bronze');

      // math certified gold (as a certification run would leave it): allowed at gold, text still not.
      await s.svc.db.update(modules).set({ certificationTier: 'gold' }).where(eq(modules.name, 'math'));
      s.svc.moduleCache.invalidate('math');
      expect((await s.call('/api/v1/modules/math', { key: t.apiKey })).body.certification_tier).toBe('gold');
      expect((await c.evaluate(secret)).status).toBe(200);
      await c.setPolicy(t, keyId, { min_trust_tier: 'gold' });
      expect((await c.evaluate(secret)).status).toBe(200);
      expectDenied(await c.slugify(secret), 'min_trust_tier', 'trust_below_minimum');
    });

    it('min_trust_score refuses a module scored below it and allows one at it', async () => {
      const t = await c.proTenant();
      const score = (await s.call('/api/v1/modules/text', { key: t.apiKey })).body.trust_score as number;
      const { keyId, secret } = await c.agentKey(t, { min_trust_score: score });
      expect((await c.slugify(secret)).status).toBe(200);
      await c.setPolicy(t, keyId, { min_trust_score: score + 1 });
      const refused = expectDenied(await c.slugify(secret), 'min_trust_score', 'trust_below_minimum');
      expect(refused.message).toContain(String(score + 1));
    });

    it('pins: a wrong definition hash is definition_changed, the current one is allowed; unpinned modules are not affected', async () => {
      const t = await c.proTenant();
      const text = await findVisibleModule(s.svc.db, t.tenantId, 'text');
      const current = definitionHash(text!.module, text!.actions);
      expect(current).toMatch(/^sha256:[0-9a-f]{64}$/);
      const stale = `sha256:${'0'.repeat(64)}`;
      const { keyId, secret } = await c.agentKey(t, { pins: { text: stale } });
      const refused = expectDenied(await c.slugify(secret), 'pins', 'definition_changed');
      expect(refused.message).toContain(current);
      expect((await c.evaluate(secret)).status).toBe(200);
      expect((await c.setPolicy(t, keyId, { pins: { text: current } })).body.policy).toEqual({ pins: { text: current } });
      expect((await c.slugify(secret)).status).toBe(200);
    });
  });

  describe('other surfaces', () => {
    it('batch: each refused call is a failed result (policy_denied), the others run', async () => {
      const t = await c.proTenant();
      const { secret } = await c.agentKey(t, { modules: ['text'] });
      const remaining = await c.remaining(t.apiKey);
      const res = await s.call('/api/v1/batch', {
        key: secret,
        body: {
          calls: [
            { id: 'ok', module: 'text', action: 'slugify', input: { text: 'Batch One' } },
            { id: 'no', module: 'math', action: 'evaluate', input: { expression: '1 + 1' } },
          ],
        },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data[0]).toMatchObject({ id: 'ok', status: 'success', output: { slug: 'batch-one' } });
      expect(res.body.data[1]).toMatchObject({ id: 'no', status: 'failed', error: { code: 'policy_denied' }, execution_id: null });
      expect(res.body).toMatchObject({ succeeded: 1, failed: 1 });
      expect(await c.executionIds(t)).toEqual([res.body.data[0].execution_id]);
      expect(Number(await c.remaining(t.apiKey))).toBe(Number(remaining) - 1);
    });

    it('chain: a refused step refuses the whole request (403, with the step) before any step runs', async () => {
      const t = await c.proTenant();
      const { secret } = await c.agentKey(t, { modules: ['text'] });
      const remaining = await c.remaining(t.apiKey);
      const res = await s.call('/api/v1/chain', {
        key: secret,
        body: {
          input: { text: 'Chain Me' },
          steps: [
            { module: 'text', action: 'slugify' },
            { module: 'math', action: 'evaluate', map: '{ "expression": "1 + 1" }' },
          ],
        },
      });
      expect(expectDenied(res, 'modules', 'module_not_allowed').step).toBe(1);
      expect(await c.executionIds(t)).toEqual([]);
      expect(await c.remaining(t.apiKey)).toBe(remaining);
    });

    it('A2A: a refused call is a JSON-RPC error (policy_denied), not a task; nothing is recorded', async () => {
      const t = await c.proTenant();
      const { secret } = await c.agentKey(t, { modules: ['text'] });
      const keyedFetch: typeof fetch = (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('x-api-key', secret);
        return fetch(input, { ...init, headers });
      };
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl: keyedFetch })],
        }),
      );
      const client = await factory.createFromUrl(s.url);
      const message = (value: unknown): Message => ({
        messageId: crypto.randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [{ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: {} }],
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      });
      const send = (value: unknown) => client.sendMessage({ tenant: '', message: message(value), configuration: undefined, metadata: {} });
      const allowed = await send({ module: 'text', action: 'slugify', input: { text: 'A2A ok' } });
      expect('status' in allowed && allowed.id).toMatch(/^exe_/);
      await expect(send({ module: 'math', action: 'evaluate', input: { expression: '1 + 1' } })).rejects.toThrow(/policy/i);

      const raw = await s.call('/api/a2a', {
        key: secret,
        headers: { 'A2A-Version': '1.0' },
        body: {
          jsonrpc: '2.0',
          id: 'p',
          method: 'SendMessage',
          params: {
            message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { tool: 'math__evaluate', input: { expression: '1' } } }] },
          },
        },
      });
      expect(raw.status).toBe(200);
      expect(raw.body).toMatchObject({
        id: 'p',
        error: {
          code: -32000,
          data: [{ reason: 'POLICY_DENIED', metadata: { error: 'policy_denied', rule: 'modules', reason: 'module_not_allowed' } }],
        },
      });
      expect(await c.executionIds(t)).toHaveLength(1);
    });

    it('workflows: a step outside the policy of the key that started the run fails with policy_denied, not retried', async () => {
      const t = await c.proTenant();
      const wf = await s.call('/api/v1/workflows', {
        key: t.apiKey,
        body: {
          name: 'policy-step',
          steps: [
            { id: 'slug', module: 'text', action: 'slugify', input: { text: 'workflow policy' } },
            {
              id: 'calc',
              module: 'math',
              action: 'evaluate',
              input: { expression: '1 + 1' },
              depends_on: ['slug'],
              retry: { max_attempts: 3, backoff_ms: 0, backoff: 'fixed' },
            },
          ],
        },
      });
      expect(wf.status, wf.text).toBe(201);
      const { secret } = await c.agentKey(t, { modules: ['text'] });
      const run = await s.call(`/api/v1/workflows/${wf.body.id}/runs`, { key: secret, body: { input: {} } });
      expect(run.status, run.text).toBe(202);
      const done = await until('the run to finish', async () => {
        const res = await s.call(`/api/v1/workflows/${wf.body.id}/runs/${run.body.run_id}`, { key: t.apiKey });
        expect(res.status, res.text).toBe(200);
        return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
      });
      expect(done.status).toBe('failed');
      expect(done.error).toMatchObject({ step: 'calc', code: 'policy_denied' });
      const calc = done.steps.find((x: { id: string }) => x.id === 'calc');
      expect(calc).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'policy_denied' }, execution_ids: [] });
      expect(done.steps.find((x: { id: string }) => x.id === 'slug').status).toBe('succeeded');
      // The same workflow started by the unrestricted primary key completes.
      const open = await s.call(`/api/v1/workflows/${wf.body.id}/runs`, { key: t.apiKey, body: { input: {} } });
      const ok = await until('the second run to finish', async () => {
        const res = await s.call(`/api/v1/workflows/${wf.body.id}/runs/${open.body.run_id}`, { key: t.apiKey });
        return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
      });
      expect(ok.status).toBe('completed');
    });
  });

  describe('the credential (admission)', () => {
    it("expires_at: past it every request of the key is refused (key_expired); the tenant's other keys work", async () => {
      const t = await c.proTenant();
      const { keyId, secret } = await c.agentKey(t, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
      expect((await s.call('/api/v1/me', { key: secret })).status).toBe(200);
      // The stored expiry moved into the past (a PUT refuses that), as time would move it.
      const past = new Date(Date.now() - 1000).toISOString();
      await s.svc.db
        .update(apiKeys)
        .set({ policy: { expires_at: past } })
        .where(eq(apiKeys.id, keyId));
      await s.svc.keyCache.invalidate();
      const me = expectDenied(await s.call('/api/v1/me', { key: secret }), 'expires_at', 'key_expired');
      expect(me.message).toContain(past);
      expectDenied(await c.slugify(secret), 'expires_at', 'key_expired');
      expect((await c.slugify(t.apiKey)).status).toBe(200);
      // Clearing the expiry brings the key back.
      expect((await c.setPolicy(t, keyId, { expires_at: null })).body.policy).toBeNull();
      expect((await c.slugify(secret)).status).toBe(200);
    });

    it('expires_at: a key used while it expires is refused once the instant has passed, without any change to it', async () => {
      const t = await c.proTenant();
      const { secret } = await c.agentKey(t, { expires_at: new Date(Date.now() + 2000).toISOString() });
      const refused = await until('the key to expire', async () => {
        const res = await s.call('/api/v1/executions', { key: secret });
        return res.status === 200 ? undefined : res;
      });
      expectDenied(refused, 'expires_at', 'key_expired');
    });

    it('ip_allow: a request from outside the allowed blocks is refused (ip_not_allowed); 127.0.0.1/32 and ::1 pass', async () => {
      const t = await c.proTenant();
      const { keyId, secret } = await c.agentKey(t, { ip_allow: ['10.0.0.0/8'] });
      const refused = expectDenied(await s.call('/api/v1/me', { key: secret }), 'ip_allow', 'ip_not_allowed');
      expect(refused.message).toContain('127.0.0.1');
      expectDenied(await c.slugify(secret), 'ip_allow', 'ip_not_allowed');
      expect(await c.executionIds(t)).toEqual([]);

      await c.setPolicy(t, keyId, { ip_allow: ['127.0.0.1/32'] });
      expect((await c.slugify(secret)).status).toBe(200);
      // The server listens on both stacks: from ::1 the IPv4 block does not match, an IPv6 entry does.
      const v6 = (key: string) => fetch(`http://[::1]:${s.port}/api/v1/me`, { headers: { 'x-api-key': key } });
      const fromV6 = await v6(secret);
      expect(fromV6.status).toBe(403);
      expect(await fromV6.json()).toMatchObject({ error: 'policy_denied', reason: 'ip_not_allowed' });
      await c.setPolicy(t, keyId, { ip_allow: ['127.0.0.1/32', '::1'] });
      expect((await v6(secret)).status).toBe(200);
      expect((await s.call('/api/v1/me', { key: secret })).status).toBe(200);
    });

    it("requests_per_minute: the key's own pool answers 429 key_limit_exceeded past it; the tenant's other keys still work", async () => {
      const t = await c.proTenant();
      const { keyId, secret } = await c.agentKey(t, { requests_per_minute: 3 });
      for (let i = 0; i < 3; i++) {
        const ok = await s.call('/api/v1/executions', { key: secret });
        expect(ok.status, ok.text).toBe(200);
        expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
        expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
      }
      const over = await s.call('/api/v1/executions', { key: secret });
      const body = expectError(over, 429, 'key_limit_exceeded');
      expect(body).toMatchObject({ limit: 'requests_per_minute', reset_at: expect.any(String) });
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter > 0).toBe(true);
      expect(over.headers.get('x-ratelimit-limit')).toBe('3');
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      expectError(await c.slugify(secret), 429, 'key_limit_exceeded');

      const primary = await s.call('/api/v1/executions', { key: t.apiKey });
      expect(primary.status).toBe(200);
      expect(Number(primary.headers.get('x-ratelimit-limit'))).toBeGreaterThan(3);
      const { secret: sibling } = await c.agentKey(t, { modules: ['text'] });
      expect((await c.slugify(sibling)).status).toBe(200);

      // Raising the key's limit takes effect on its very next request.
      await c.setPolicy(t, keyId, { requests_per_minute: 100 });
      const raised = await s.call('/api/v1/executions', { key: secret });
      expect(raised.status, raised.text).toBe(200);
      await c.setPolicy(t, keyId, { requests_per_minute: null });
      expect((await s.call('/api/v1/executions', { key: secret })).status).toBe(200);
    });

    it('a changed policy takes effect on the very next request of a key in use', async () => {
      const t = await c.proTenant();
      const { keyId, secret } = await c.agentKey(t, { modules: ['text'] });
      for (let i = 0; i < 3; i++) expect((await c.slugify(secret)).status).toBe(200);
      await c.setPolicy(t, keyId, { modules: ['math'] });
      expectDenied(await c.slugify(secret), 'modules', 'module_not_allowed');
      expect((await c.evaluate(secret)).status).toBe(200);
      await c.setPolicy(t, keyId, { modules: null });
      expect((await c.slugify(secret)).status).toBe(200);
    });
  });
});

describe.skipIf(missing.postgres !== undefined)('key policies on two instances sharing PostgreSQL and Redis', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ backend: 'postgres' });
    b = await startTestServer({ backend: 'postgres', databaseUrl: a.config.databaseUrl });
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const ca = () => clientOf(a);

  it('a policy set on one instance holds on the next request to the other, whose key cache held the key', async () => {
    const cb = clientOf(b);
    const t = await ca().proTenant();
    const { keyId, secret } = await ca().agentKey(t, { modules: ['text'] });
    for (let i = 0; i < 3; i++) expect((await cb.slugify(secret)).status).toBe(200);
    expectDenied(await cb.evaluate(secret), 'modules', 'module_not_allowed');

    await ca().setPolicy(t, keyId, { modules: ['math'] });
    expectDenied(await cb.slugify(secret), 'modules', 'module_not_allowed');
    expect((await cb.evaluate(secret)).status).toBe(200);

    await ca().setPolicy(t, keyId, { ip_allow: ['10.0.0.0/8'] });
    expectDenied(await b.call('/api/v1/me', { key: secret }), 'ip_allow', 'ip_not_allowed');
    await ca().setPolicy(t, keyId, { ip_allow: null, requests_per_minute: 2 });
    expect((await b.call('/api/v1/me', { key: secret })).status).toBe(200);
    expect((await a.call('/api/v1/me', { key: secret })).status).toBe(200);
    // One pool for the key across instances.
    expectError(await b.call('/api/v1/me', { key: secret }), 429, 'key_limit_exceeded');
    await ca().setPolicy(t, keyId, { requests_per_minute: null });
    expect((await b.call('/api/v1/me', { key: secret })).status).toBe(200);
  });

  it("a key's request pool counts each request once, also when the instance's cached entry of the key has gone stale", async () => {
    const t = await ca().proTenant();
    const { secret } = await ca().agentKey(t, { requests_per_minute: 3 });
    const { keyId: otherKeyId } = await ca().agentKey(t);
    expect((await b.call('/api/v1/me', { key: secret })).status).toBe(200);
    // Any key change makes every cached entry stale, b's entry of this key included.
    await ca().setPolicy(t, otherKeyId, { modules: ['text'] });
    expect((await b.call('/api/v1/me', { key: secret })).status).toBe(200);
    expect((await a.call('/api/v1/me', { key: secret })).status).toBe(200);
    expectError(await b.call('/api/v1/me', { key: secret }), 429, 'key_limit_exceeded');
  });
});
