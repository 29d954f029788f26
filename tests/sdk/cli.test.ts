/**
 * The `amp` command line (packages/sdk/src/cli.ts) against a real service: `runCli` in-process for
 * each command, and one run as a process for the exit code.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile, EXIT, runCli } from '../../packages/sdk/src/cli';
import { startTestServer, type TestServer } from '../harness';

describe('amp CLI (embedded)', () => {
  let s: TestServer;
  let apiKey: string;
  let configDir: string;
  beforeAll(async () => {
    s = await startTestServer();
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    apiKey = t.apiKey;
    configDir = mkdtempSync(path.join(tmpdir(), 'amp-cli-'));
  });
  afterAll(async () => {
    rmSync(configDir, { recursive: true, force: true });
    await s?.close();
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
