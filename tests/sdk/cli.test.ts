/**
 * The `amp` command line's webhook, executions-tail and invoice commands against a real service
 * (embedded), each run in-process through `runCli` as the program runs it: a real receiver gets
 * the test delivery, the tail follows executions made while it runs, and the invoice's PDF is
 * saved from a cycle the operator closed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runCli } from '../../packages/sdk/src/cli';
import { Amp, verifyWebhook } from '../../packages/sdk/src/index';
import { until } from '../child-service';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../receiver';

let s: TestServer;
let apiKey: string;
let configDir: string;
beforeAll(async () => {
  s = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  const t = await s.register();
  await s.setPlan(t.tenantId, 'pro');
  apiKey = t.apiKey;
  configDir = mkdtempSync(path.join(tmpdir(), 'amp-cli-'));
});
afterAll(async () => {
  rmSync(configDir, { recursive: true, force: true });
  await s?.close();
});

/** One command line, logged in by environment; `signal` ends a long-running one. */
function amp(args: string[], signal?: AbortSignal) {
  const out = { stdout: '', stderr: '' };
  const done = runCli(args, {
    env: { AMP_CONFIG_DIR: configDir, AMP_API_KEY: apiKey, AMP_BASE_URL: s.url },
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    ...(signal ? { signal } : {}),
  });
  return Object.assign(
    done.then((code) => ({ code, ...out, json: () => JSON.parse(out.stdout) })),
    { out },
  );
}

describe('amp webhooks, executions tail and invoices (embedded)', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver((_req, index) => ({ status: index === 0 ? 200 : 500 }));
  });
  afterAll(async () => receiver?.close());

  it('webhooks create, list and test: the receiver gets a delivery signed with the printed secret', async () => {
    const created = await amp(['webhooks', 'create', receiver.url, '--events', 'execution.completed,execution.failed']);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const id = /^id\s+(\S+)$/m.exec(created.stdout)?.[1];
    const secret = /^secret\s+(whsec_\S+)$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect(secret).toBeDefined();

    const list = await amp(['webhooks', 'list']);
    expect(list.code).toBe(EXIT.ok);
    expect(list.stdout).toContain(id!);
    expect(list.stdout).toContain('execution.completed,execution.failed');

    const tested = await amp(['webhooks', 'test', id!]);
    expect(tested.code, tested.stderr).toBe(EXIT.ok);
    expect(tested.stdout).toMatch(/^Delivered evt_\S+: the receiver answered 200 in \d+ ms\.$/m);
    const [delivery] = await receiver.waitFor(1);
    const headers = Object.fromEntries(Object.entries(delivery!.headers).map(([k, v]) => [k, String(v)]));
    expect(verifyWebhook(delivery!.raw, headers as never, secret!)).toMatchObject({ event: 'webhook.test', test: true });

    // The receiver answers 500 from now on: not delivered, exit 1, with the status.
    const failed = await amp(['webhooks', 'test', id!, '--json']);
    expect(failed.code).toBe(EXIT.error);
    expect(failed.json()).toMatchObject({ delivered: false, status_code: 500 });

    const missing = await amp(['webhooks', 'test', 'wh_nope']);
    expect(missing.code).toBe(EXIT.notFound);
    expect((await amp(['webhooks', 'create'])).code).toBe(EXIT.usage);
  });

  it('executions tail prints executions as they are recorded, oldest first, each once; Ctrl-C ends it with 0', async () => {
    const client = new Amp({ apiKey }, { baseUrl: s.url });
    const before = await client.modules.execute('text', { action: 'slugify', input: { text: 'Before Tail' } });
    const stop = new AbortController();
    const tail = amp(['executions', 'tail', '--interval', '0.5', '--module', 'text'], stop.signal);
    await until('the tail to print', async () => tail.out.stdout.startsWith('Following'));
    const first = await client.modules.execute('text', { action: 'slugify', input: { text: 'One' } });
    const second = await client.modules.execute('text', { action: 'slugify', input: { text: 'Two' } });
    await client.modules.execute('crypto', { action: 'uuid', input: {} });
    await until('the tail to print', async () => tail.out.stdout.includes(second.execution_id));
    // Polls after the one that showed them: each is still printed once.
    const third = await client.modules.execute('text', { action: 'slugify', input: { text: 'Three' } });
    await until('the tail to print', async () => tail.out.stdout.includes(third.execution_id));
    stop.abort();
    const ended = await tail;
    expect(ended.code, ended.stderr).toBe(EXIT.ok);
    const lines = ended.stdout.trim().split('\n').slice(1);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(first.execution_id);
    expect(lines[0]).toMatch(/text\.slugify {2}success {2}\d+ ms$/);
    expect(lines[1]).toContain(second.execution_id);
    expect(ended.stdout).not.toContain(before.execution_id);

    // --since shows what happened since that instant, as JSON lines.
    const again = new AbortController();
    const { created_at: beforeAt } = await client.executions.get(before.execution_id);
    const since = amp(['executions', 'tail', '--since', beforeAt, '--module', 'text', '--json'], again.signal);
    await until('the tail to print', async () => since.out.stdout.split('\n').filter(Boolean).length >= 4);
    again.abort();
    const seen = (await since).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).execution_id);
    expect(seen).toEqual([before.execution_id, first.execution_id, second.execution_id, third.execution_id]);

    // An outage after the first answer (a restart of the service): said on stderr, and the tail goes on.
    let down = false;
    const outage = new AbortController();
    const out = { stdout: '', stderr: '' };
    const riding = runCli(['executions', 'tail', '--interval', '0.5', '--module', 'text', '--base-url', s.url, '--api-key', apiKey], {
      env: { AMP_CONFIG_DIR: configDir },
      stdout: (t) => (out.stdout += t),
      stderr: (t) => (out.stderr += t),
      signal: outage.signal,
      fetch: (input, init) => (down ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init)),
    });
    const seenFirst = await client.modules.execute('text', { action: 'slugify', input: { text: 'Before Outage' } });
    await until('a poll to answer', async () => out.stdout.includes(seenFirst.execution_id));
    down = true;
    await until('the outage to be said', async () => /^No answer \(.*\); trying again in 2 s\.$/m.test(out.stderr));
    down = false;
    const after = await client.modules.execute('text', { action: 'slugify', input: { text: 'After Outage' } });
    await until('the tail to print after the outage', async () => out.stdout.includes(after.execution_id));
    outage.abort();
    expect(await riding).toBe(EXIT.ok);

    expect((await amp(['executions', 'tail', '--interval', '0'])).code).toBe(EXIT.usage);
    expect((await amp(['executions', 'tail', '--since', 'yesterday'])).code).toBe(EXIT.usage);
  });

  it('a command group alone, with an unknown command or with --help answers with its own commands', async () => {
    const bare = await amp(['invoices']);
    expect(bare.code).toBe(EXIT.usage);
    expect(bare.stderr).toMatch(/^`amp invoices` takes a command\.\n\nUsage: amp invoices <command>/);
    expect(bare.stderr).toContain('  invoices pdf <invoice_id>');
    expect(bare.stderr).not.toContain('  keys list');

    const unknown = await amp(['keys', 'frob']);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toMatch(/^Unknown command: keys frob\./);
    expect(unknown.stderr).toContain('  keys create <name>');
    // A prefix of a command is not that command.
    expect((await amp(['invoices', 'l'])).code).toBe(EXIT.usage);

    const help = await amp(['webhooks', '--help']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain('  webhooks listen --forward URL');
    expect(help.stdout).toContain('Exit codes:');
    expect(help.stdout).not.toContain('  modules run');

    // A usage error inside a group shows that group's commands.
    const missing = await amp(['modules', 'show']);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toMatch(/^Missing a module name .*\n\nUsage: amp modules <command>/);
  });

  it('bad arguments are usage errors (2) at once: extra words, a base URL without a scheme, a key no API key looks like, unknown flags in a group', async () => {
    const extra = await amp(['whoami', 'extra', 'words']);
    expect(extra.code).toBe(EXIT.usage);
    expect(extra.stderr).toMatch(/^Unexpected arguments: extra words/);
    expect((await amp(['modules', 'show', 'text', 'more'])).stderr).toMatch(/^Unexpected argument: more/);

    const schemeless = await amp(['whoami', '--base-url', new URL(s.url).host]);
    expect(schemeless.code).toBe(EXIT.usage);
    expect(schemeless.stderr).toMatch(/^--base-url takes an http:\/\/ or https:\/\/ URL/);

    const started = Date.now();
    const cyrillic = await amp(['whoami', '--api-key', 'ключ']);
    expect(cyrillic.code).toBe(EXIT.usage);
    expect(cyrillic.stderr).toMatch(/^The API key holds characters an API key never has/);
    expect(Date.now() - started).toBeLessThan(5_000); // refused, not retried as a network failure

    const flag = await amp(['modules', 'run', 'text', 'slugify', '--bogus']);
    expect(flag.code).toBe(EXIT.usage);
    expect(flag.stderr).toContain('Usage: amp modules <command>');
    expect(flag.stderr).not.toContain('  keys list');
  });

  it('--version, help, and a bare amp (usage on stderr, 2)', async () => {
    const version = await amp(['--version']);
    expect(version.code).toBe(EXIT.ok);
    expect(version.stdout).toMatch(/^amp \d+\.\d+\.\d+\n$/);
    expect((await amp(['-v'])).stdout).toBe(version.stdout);
    expect((await amp(['version', '--json'])).json()).toEqual({ version: expect.any(String) });
    expect((await amp(['help'])).stdout).toContain('Exit codes:');
    const bare = await amp([]);
    expect(bare.code).toBe(EXIT.usage);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('Usage: amp <command>');
  });

  it('no answer is exit 6 and says where and why', async () => {
    // A port something listened on a moment ago: nothing answers there now.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const closed = `http://127.0.0.1:${port}`;
    const refused = await amp(['whoami', '--base-url', closed]);
    expect(refused.code).toBe(EXIT.connection);
    expect(refused.stderr).toContain(`GET ${closed}/api/v1/me failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    const login = await runCli(['login', '--no-open', '--base-url', closed], {
      env: { AMP_CONFIG_DIR: configDir },
      stdout: () => {},
      stderr: () => {},
    });
    expect(login).toBe(EXIT.connection);
  });

  it('modules run --input-file: a missing file, a second input or bad JSON are usage errors; a byte order mark is skipped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-input-'));
    try {
      const missing = await amp(['modules', 'run', 'text', 'slugify', '--input-file', path.join(dir, 'nope.json')]);
      expect(missing.code).toBe(EXIT.usage);
      expect(missing.stderr).toMatch(/^--input-file: cannot read .*nope\.json \(no such file\)/);
      expect((await amp(['modules', 'run', 'text', 'slugify', '--input-file', dir])).code).toBe(EXIT.usage);

      const bom = path.join(dir, 'bom.json');
      writeFileSync(bom, '\uFEFF{"text":"Byte Order Mark"}');
      const read = await amp(['modules', 'run', 'text', 'slugify', '--input-file', bom, '--json']);
      expect(read.code, read.stderr).toBe(EXIT.ok);
      expect(read.json().output).toEqual({ slug: 'byte-order-mark' });

      const both = await amp(['modules', 'run', 'text', 'slugify', '--input', '{}', '--input-file', bom]);
      expect(both.code).toBe(EXIT.usage);
      expect(both.stderr).toMatch(/^Give --input or --input-file, not both\./);

      const broken = path.join(dir, 'broken.json');
      writeFileSync(broken, '{"text":');
      expect((await amp(['modules', 'run', 'text', 'slugify', '--input-file', broken])).stderr).toMatch(/^--input-file is not JSON\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logout forgets the credential and keeps the listen secret', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-logout-'));
    try {
      const env = { AMP_CONFIG_DIR: dir };
      const io = { env, stdout: () => {}, stderr: () => {} };
      expect(await runCli(['login', '--api-key', apiKey, '--base-url', s.url], io)).toBe(EXIT.ok);
      const file = path.join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), listen_secret: 'whsec_kept' }));
      expect(await runCli(['logout'], io)).toBe(EXIT.ok);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ listen_secret: 'whsec_kept' });
      expect(await runCli(['whoami'], io)).toBe(EXIT.auth);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Last: closing the cycle early invoices every pro tenant of this server.
  it('invoices list, show and pdf', async () => {
    const now = new Date();
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    const closed = await s.call('/api/v1/admin/billing/close', { headers: { 'x-admin-token': ADMIN_TOKEN }, body: { at } });
    expect(closed.status, closed.text).toBe(200);

    const list = await amp(['invoices', 'list', '--json']);
    expect(list.code, list.stderr).toBe(EXIT.ok);
    const [invoice] = list.json().data;
    expect(invoice).toMatchObject({ status: 'open' });
    const human = await amp(['invoices', 'list']);
    expect(human.stdout).toContain(invoice.number);

    const shown = await amp(['invoices', 'show', invoice.id]);
    expect(shown.code).toBe(EXIT.ok);
    expect(shown.stdout).toMatch(new RegExp(`^number\\s+${invoice.number}$`, 'm'));
    expect(shown.stdout).toMatch(/DESCRIPTION\s+QUANTITY/);

    const file = path.join(configDir, 'invoice.pdf');
    const saved = await amp(['invoices', 'pdf', invoice.id, '--out', file]);
    expect(saved.code, saved.stderr).toBe(EXIT.ok);
    expect(saved.stdout).toContain(file);
    expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await amp(['invoices', 'show', 'inv_nope'])).code).toBe(EXIT.notFound);
  });
});
