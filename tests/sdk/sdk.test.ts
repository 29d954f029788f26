/**
 * The TypeScript SDK (packages/sdk) against a real service (embedded PGlite, as the other API
 * tests start it): resources, typed errors, pagination, a real webhook delivery verified, the MCP
 * and A2A helpers, the committed generated types against the live OpenAPI document, and the `amp`
 * command line (`runCli` in-process for each command, and one run as a process for the exit code).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { configFile, EXIT, runCli } from '../../packages/sdk/src/cli';
import { fetchOpenApiDocument, generateSdkTypes, SDK_TYPES_FILE } from '../../packages/sdk/scripts/generate';
import {
  Amp,
  ApiError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  verifyWebhook,
  type ApiErrorCode,
  type ExecutionResult,
  type Module,
} from '../../packages/sdk/src/index';
import { startTestServer, type TestServer } from '../harness';
import { startReceiver } from '../receiver';
import { freePort } from '../ports';

let s: TestServer;
beforeAll(async () => {
  const port = await freePort();
  s = await startTestServer({ env: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, WEBHOOK_ALLOW_PRIVATE: '1' } });
});
afterAll(async () => s?.close());

describe('TypeScript SDK against the service (embedded)', () => {
  let amp: Amp;
  let tenantId: string;
  beforeAll(async () => {
    const t = await s.register();
    tenantId = t.tenantId;
    await s.setPlan(t.tenantId, 'pro');
    amp = new Amp({ apiKey: t.apiKey }, { baseUrl: s.url });
  });

  it('the committed generated types are what openapi-typescript makes of the live /openapi.json', async () => {
    const live = await generateSdkTypes(await fetchOpenApiDocument(s.url));
    // On failure: run `npm run generate -w packages/sdk` and commit packages/sdk/src/generated/openapi.ts.
    expect(live).toBe(readFileSync(SDK_TYPES_FILE, 'utf8'));
  });

  it('me, module get and execute answer typed bodies', async () => {
    const me = await amp.me();
    expect(me).toMatchObject({ tenant_id: tenantId });
    const text = await amp.modules.get('text');
    expectTypeOf(text).toEqualTypeOf<Module>();
    expect(text.name).toBe('text');
    const result = await amp.modules.execute('text', { action: 'slugify', input: { text: 'Hello SDK World' } });
    expectTypeOf(result).toEqualTypeOf<ExecutionResult>();
    expect(result).toMatchObject({ module: 'text', action: 'slugify', status: 'success', output: { slug: 'hello-sdk-world' } });
    const record = await amp.executions.get(result.execution_id);
    expect(record).toMatchObject({ execution_id: result.execution_id, module: 'text', status: 'success' });
    const found = await amp.modules.search({ q: 'slug' });
    expect(found.data.length).toBeGreaterThan(0);
    await expect(amp.modules.install('text')).resolves.toMatchObject({ module: 'text' });
    await expect(amp.modules.uninstall('text')).resolves.toMatchObject({ module: 'text', installed: false });
  });

  it('errors are typed: 404 NotFoundError, 400 BadRequestError with issues, 403 with its fields', async () => {
    const missing = await amp.modules.get('no-such-module').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toBeInstanceOf(ApiError);
    const notFound = missing as NotFoundError;
    expectTypeOf(notFound.code).toEqualTypeOf<ApiErrorCode>();
    expect(notFound).toMatchObject({ status: 404, code: 'not_found' });
    expect(notFound.requestId).toMatch(/^req_/);
    expect(notFound.docUrl).toMatch(/\/docs\/errors#not_found$/);
    expect(notFound.body?.request_id).toBe(notFound.requestId);

    const invalid = await amp.executions.list({ limit: 1000 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect((invalid as BadRequestError).code).toBe('invalid_request');
    expect((invalid as BadRequestError).issues).toEqual([expect.objectContaining({ path: 'limit', message: expect.any(String) })]);

    const narrow = await amp.keys.create({ name: 'read-only', scopes: ['modules:read'] });
    const readOnly = new Amp({ apiKey: narrow.api_key }, { baseUrl: s.url });
    const denied = await readOnly.modules.execute('text', { action: 'slugify', input: { text: 'x' } }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect(denied).toMatchObject({ status: 403, code: 'insufficient_scope', body: { required_scope: 'modules:execute' } });
  });

  it('keys: create, list, get, policy, rotate, revoke', async () => {
    const created = await amp.keys.create({ name: 'ci', scopes: ['modules:read', 'modules:execute'] });
    expect(created.api_key).toMatch(/^amp_/);
    const got = await amp.keys.get(created.key_id);
    expect(got).toMatchObject({ key_id: created.key_id, name: 'ci' });
    const withPolicy = await amp.keys.setPolicy(created.key_id, { modules: ['text'] });
    expect(withPolicy.policy).toMatchObject({ modules: ['text'] });
    const rotated = await amp.keys.rotate(created.key_id, { grace_seconds: 0 });
    expect(rotated.api_key).not.toBe(created.api_key);
    const ids: string[] = [];
    for await (const key of amp.keys.listAll({ limit: 1 })) ids.push(key.key_id);
    expect(ids).toContain(created.key_id);
    await expect(amp.keys.revoke(created.key_id)).resolves.toMatchObject({ key_id: created.key_id, revoked: true });
  });

  it('pagination: the iterators follow next_cursor across pages', async () => {
    for (let i = 0; i < 5; i++) await amp.memory.set({ agent_id: 'pager', key: `k${i}`, value: { i } });
    const first = await amp.memory.list({ agent_id: 'pager', limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    expect(first.hasNextPage()).toBe(true);
    const second = await first.getNextPage();
    expect(second.data.map((e) => e.key)).not.toContain(first.data[0]!.key);

    const keys: string[] = [];
    for await (const entry of amp.memory.listAll({ agent_id: 'pager', limit: 2 })) keys.push(entry.key);
    expect(keys.sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    let pages = 0;
    for await (const page of first.pages()) pages += page.data.length > 0 ? 1 : 0;
    expect(pages).toBe(3);

    const firstModules = await amp.modules.list({ limit: 7 });
    const names: string[] = [];
    for await (const m of firstModules) names.push(m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(firstModules.body.total);
    expect(names.length).toBeGreaterThan(7);
  });

  it('webhooks: create, a real test delivery verified with webhooks.verify, deliveries, update, delete', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await amp.webhooks.create({ url: receiver.url, events: ['execution.completed'] });
      expect(hook.secret).toMatch(/^whsec_/);
      const sent = await amp.webhooks.test(hook.id);
      expect(sent).toMatchObject({ delivered: true });
      const [delivery] = await receiver.waitFor(1);
      const envelope = amp.webhooks.verify(delivery!.raw, delivery!.headers, hook.secret!);
      expect(envelope.id).toBe(delivery!.headers['webhook-id']);
      expect(() => verifyWebhook(Buffer.concat([delivery!.raw, Buffer.from(' ')]), delivery!.headers, hook.secret!)).toThrow(/signature/);

      const deliveries = await amp.webhooks.deliveries(hook.id);
      expect(Array.isArray(deliveries)).toBe(true);
      const poll = await amp.webhooks.create({ kind: 'poll', events: ['execution.completed'] });
      const start = await amp.webhooks.messages(poll.id, { after: 'now' });
      expect(start.next_cursor).toEqual(expect.any(String));
      for (const text of ['one', 'two', 'three']) await amp.modules.execute('text', { action: 'slugify', input: { text } });
      // Events are recorded right after the execution's answer: read until the three are there.
      let polled: string[] = [];
      for (let i = 0; i < 50 && polled.length < 3; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        polled = [];
        for await (const message of amp.webhooks.messagesAll(poll.id, { after: start.next_cursor!, limit: 1 })) polled.push(message.id);
      }
      expect(polled).toHaveLength(3);
      expect(new Set(polled).size).toBe(3);
      const updated = await amp.webhooks.update(hook.id, { events: ['execution.completed', 'execution.failed'] });
      expect(updated.events).toEqual(['execution.completed', 'execution.failed']);
      const listed = [];
      for await (const w of amp.webhooks.listAll()) listed.push(w.id);
      expect(listed).toContain(hook.id);
      await expect(amp.webhooks.delete(hook.id)).resolves.toMatchObject({ id: hook.id, deleted: true });
    } finally {
      await receiver.close();
    }
  });

  it('workflows, usage and invoices', async () => {
    const wf = await amp.workflows.create({
      name: 'slug',
      steps: [{ id: 'slug', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } }],
    });
    const started = await amp.workflows.run(wf.id, { input: { title: 'Run Me' } });
    expect(started.run_id).toMatch(/^run_/);
    const runs = await amp.workflows.runs(wf.id);
    expect(runs.data.map((r) => r.run_id)).toContain(started.run_id);
    const usage = await amp.usage.get();
    expect(usage).toBeTypeOf('object');
    const invoices = await amp.invoices.list();
    expect(invoices.data).toEqual([]);
  });

  it('members and the audit log: who is calling, roles, and the changes made so far (JSON and CSV)', async () => {
    const me = await amp.members.me();
    expect(me).toMatchObject({ kind: 'api_key', role: null, scopes: ['*'] });
    const roles = await amp.members.roles();
    expect(roles.data.map((r) => r.role)).toContain('viewer');
    expect((await amp.members.list()).data).toEqual([]);
    const created = [];
    for await (const entry of amp.auditLog.listAll({ action: 'key.*' })) created.push(entry.action);
    expect(created).toContain('key.created');
    const csv = await amp.auditLog.csv({ action: 'key.created' });
    expect(csv.split('\n')[0]).toMatch(/^id,at,actor_type/);
  });

  it('mcp() connects the official MCP client and lists the tools; a2a() resolves the agent card', async () => {
    const mcp = await amp.mcp();
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toContain('text__slugify');
      const call = await mcp.callTool({ name: 'text__slugify', arguments: { text: 'Via MCP' } });
      expect(call.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    const a2a = await amp.a2a();
    expect(a2a.protocolVersion).toBe('1.0');
  });
});

describe('amp CLI (embedded)', () => {
  let apiKey: string;
  let configDir: string;
  beforeAll(async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    apiKey = t.apiKey;
    configDir = mkdtempSync(path.join(tmpdir(), 'amp-cli-'));
  });
  afterAll(() => {
    rmSync(configDir, { recursive: true, force: true });
  });

  /** One command line; `env` is added to a clean environment whose config dir is the test's. */
  async function amp(args: string[], env: Record<string, string> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      env: { AMP_CONFIG_DIR: configDir, ...env },
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  }

  it('without a credential: exit 3 and a hint; usage errors exit 2', async () => {
    const none = await amp(['whoami', '--base-url', s.url]);
    expect(none.code).toBe(EXIT.auth);
    expect(none.stderr).toMatch(/amp login/);
    expect((await amp(['frobnicate'])).code).toBe(EXIT.usage);
    expect((await amp(['modules', 'show', '--nope'])).code).toBe(EXIT.usage);
    expect((await amp([])).code).toBe(EXIT.usage);
    expect((await amp(['--help'])).code).toBe(EXIT.ok);
  });

  it('login checks the key and stores it (0600) under the config dir; a bad key is refused with exit 3', async () => {
    const bad = await amp(['login', '--api-key', 'amp_not_a_real_key_000000000000', '--base-url', s.url]);
    expect(bad.code).toBe(EXIT.auth);
    expect(bad.stderr).toMatch(/401 unauthorized/);

    const ok = await amp(['login', '--base-url', s.url], { AMP_API_KEY: apiKey });
    expect(ok.code).toBe(EXIT.ok);
    const file = configFile({ AMP_CONFIG_DIR: configDir });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ base_url: s.url, api_key: apiKey });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const me = await amp(['whoami', '--json']);
    expect(me.code).toBe(EXIT.ok);
    expect(me.json()).toMatchObject({ plan: 'pro' });
  });

  it('modules search, show and run; executions list and show; usage', async () => {
    const found = await amp(['modules', 'search', 'slug', '--json']);
    expect(found.code).toBe(EXIT.ok);
    expect(found.json().data.length).toBeGreaterThan(0);
    const shown = await amp(['modules', 'show', 'text']);
    expect(shown.code).toBe(EXIT.ok);
    expect(shown.stdout).toMatch(/slugify/);

    const run = await amp(['modules', 'run', 'text', 'slugify', '--input', '{"text":"Hello CLI"}', '--json']);
    expect(run.code).toBe(EXIT.ok);
    const result = run.json();
    expect(result.output).toEqual({ slug: 'hello-cli' });
    const human = await amp(['modules', 'run', 'text', 'slugify', '--input', '{"text":"Again"}']);
    expect(JSON.parse(human.stdout)).toEqual({ slug: 'again' });
    expect((await amp(['modules', 'run', 'text', 'slugify', '--input', '{oops'])).code).toBe(EXIT.usage);

    const list = await amp(['executions', 'list', '--limit', '5']);
    expect(list.code).toBe(EXIT.ok);
    expect(list.stdout).toContain(result.execution_id);
    // Two executions ran above: a page of one says how to get the next.
    const first = await amp(['executions', 'list', '--limit', '1']);
    const cursor = /^\(more: amp executions list --cursor (\S+)\)$/m.exec(first.stdout)?.[1];
    expect(cursor, first.stdout).toBeDefined();
    const second = await amp(['executions', 'list', '--limit', '1', '--cursor', cursor!]);
    expect(second.code).toBe(EXIT.ok);
    expect(second.stdout.split('\n')[1]).not.toBe(first.stdout.split('\n')[1]);
    const one = await amp(['executions', 'show', result.execution_id, '--json']);
    expect(one.json()).toMatchObject({ execution_id: result.execution_id, status: 'success' });
    const usage = await amp(['usage', '--json']);
    expect(usage.code).toBe(EXIT.ok);
    expect(usage.json()).toBeTypeOf('object');

    const missing = await amp(['modules', 'show', 'no-such-module']);
    expect(missing.code).toBe(EXIT.notFound);
    expect(missing.stderr).toMatch(/404 not_found/);
  });

  it('keys create and list', async () => {
    const created = await amp(['keys', 'create', 'cli-made', '--scopes', 'modules:read,modules:execute', '--json']);
    expect(created.code).toBe(EXIT.ok);
    const key = created.json();
    expect(key.api_key).toMatch(/^amp_/);
    const list = await amp(['keys', 'list']);
    expect(list.code).toBe(EXIT.ok);
    expect(list.stdout).toContain(key.key_id);
    expect(list.stdout).not.toContain(key.api_key);
    const denied = await amp(['keys', 'create', 'x', '--api-key', key.api_key]);
    expect(denied.code).toBe(EXIT.auth);
  });

  it('as a process: the exit code reaches the shell', async () => {
    const cli = path.resolve('packages/sdk/src/cli.ts');
    const code = await new Promise<number>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', cli, 'modules', 'show', 'no-such-module', '--api-key', apiKey, '--base-url', s.url],
        { env: { ...process.env, AMP_CONFIG_DIR: configDir } },
        (err) => resolve(err ? Number((err as { code?: number }).code) : 0),
      );
    });
    expect(code).toBe(EXIT.notFound);
  });
});
