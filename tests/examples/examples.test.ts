/**
 * Every example under examples/ against a real service (embedded PGlite): each runs as a child
 * process, as a newcomer would run it (the TypeScript ones through tsx, reading AMP_BASE_URL and
 * AMP_API_KEY), and its output is checked: the agent loop's final answer, a real webhook delivery
 * verified by each receiver, the MCP client configurations connecting, the approved workflow run
 * completing. The Python receiver is skipped when python3 is absent.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Amp } from '../../packages/sdk/src/index';
import { startTestServer, type TestServer } from '../harness';

const PYTHON = 'python3';
const probe = spawnSync(PYTHON, ['-c', 'import sys; print(sys.version_info >= (3, 9))'], { encoding: 'utf8' });
const noPython = probe.status === 0 && probe.stdout.trim() === 'True' ? undefined : 'python3 (3.9 or later) is not installed';
if (noPython) console.log(`tests/examples/examples.test.ts: the Python receiver is skipped: ${noPython}`);

const ROOT = path.resolve('.');
/** A TypeScript example as `npx tsx <file>` runs it (the tsx loader directly, without npx's start-up). */
const tsx = (file: string) => [process.execPath, ['--import', 'tsx', file]] as const;

/** A running child whose output lines are collected and can be awaited. */
interface Child {
  proc: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

function start(command: string, args: readonly string[], env: Record<string, string>): Child {
  const proc = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  const append = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of waiters) w();
  };
  proc.stdout!.on('data', append);
  proc.stderr!.on('data', append);
  // 'close': the process has exited and its output has been read to the end.
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  const child: Child = {
    proc,
    exited,
    output: () => out,
    waitFor(pattern, timeoutMs = 45_000) {
      return new Promise((resolve, reject) => {
        const fail = (why: string) => {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`${why}: no ${pattern} in the output of ${args.join(' ')}:\n${out}`));
        };
        const check = () => {
          const m = pattern.exec(out);
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => fail(`${timeoutMs} ms`), timeoutMs);
        waiters.add(check);
        void exited.then((code) => waiters.has(check) && fail(`exited with ${code}`));
        check();
      });
    },
  };
  return child;
}

/** The status line's code of a raw HTTP request to `url`'s host and port (0 when none came). */
function rawStatus(url: string, request: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', () => undefined);
  });
}

/** Runs an example to its end: its exit code and output. */
async function run(command: string, args: readonly string[], env: Record<string, string>) {
  const child = start(command, args, env);
  children.push(child);
  const code = await child.exited;
  return { code, output: child.output() };
}

let s: TestServer;
let env: Record<string, string>;
let amp: Amp;
const children: Child[] = [];
beforeAll(async () => {
  s = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  const t = await s.register();
  // Webhooks need Pro.
  await s.setPlan(t.tenantId, 'pro');
  env = { AMP_BASE_URL: s.url, AMP_API_KEY: t.apiKey };
  amp = new Amp({ apiKey: t.apiKey }, { baseUrl: s.url });
});
afterAll(async () => {
  for (const c of children) c.proc.kill('SIGTERM');
  await Promise.all(children.map((c) => c.exited));
  await s?.close();
});

describe('examples/ against the service (embedded)', () => {
  it('agent-loop: installs what it calls, arms, runs each planned tool call through execute, prints the final answer', async () => {
    // A tenant that has run a module already (the README's walk-through): `text` is installed, so
    // arming answers installed modules' tools only.
    await amp.modules.execute('text', { action: 'slugify', input: { text: 'first use installs' } });
    const { code, output } = await run(...tsx('examples/agent-loop/index.ts'), env);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^armed: \d+ tools \(installed\)/m);
    expect(output).toMatch(/^step 1: text__change_case/m);
    expect(output).toMatch(/^step 4: math__evaluate/m);
    expect(output).toMatch(/^final answer: "Agents That Call Tools" at \/posts\/agents-that-call-tools: 21 words, about 7 s to read$/m);
  }, 90_000);

  it('workflow-approval: the run waits for the approval, is approved through the SDK and completes', async () => {
    const { code, output } = await run(...tsx('examples/workflow-approval/index.ts'), env);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^waiting for approval: .*"kind":"approval"/m);
    expect(output).toMatch(/^ {2}review: succeeded .*"approved":true/m);
    expect(output).toMatch(/^run run_\S+ completed: \{"publish":\{"result":"HELLO_APPROVALS"\}\}$/m);
  }, 90_000);

  it('mcp-clients: each configuration connects with the official MCP client, lists the tools and calls one', async () => {
    // Parsed here as each client reads it, with the test's address and key in place of the placeholders.
    const dir = 'examples/mcp-clients';
    const json = (file: string) => JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    const local = (url: string) => url.replace('http://localhost:3000', s.url);
    const claude = json('claude_desktop_config.json').mcpServers['agent-module-platform'];
    const header = (claude.args as string[])[(claude.args as string[]).indexOf('--header') + 1]!;
    expect(claude.command).toBe('npx');
    expect(header).toBe('x-api-key:${AMP_API_KEY}');
    expect(Object.keys(claude.env)).toEqual(['AMP_API_KEY']);
    const cursor = json('.cursor/mcp.json').mcpServers['agent-module-platform'];
    expect(cursor.headers).toEqual({ 'x-api-key': '${env:AMP_API_KEY}' });
    const vscode = json('.vscode/mcp.json');
    const vsServer = vscode.servers['agent-module-platform'];
    expect(vsServer).toMatchObject({ type: 'http', headers: { 'x-api-key': '${input:amp-api-key}' } });
    expect(vscode.inputs).toEqual([expect.objectContaining({ type: 'promptString', id: 'amp-api-key', password: true })]);

    const remotes = [
      { url: (claude.args as string[]).find((a) => a.startsWith('http'))!, headers: { [header.split(':')[0]!]: env.AMP_API_KEY! } },
      { url: cursor.url as string, headers: { 'x-api-key': env.AMP_API_KEY! } },
      { url: vsServer.url as string, headers: { 'x-api-key': env.AMP_API_KEY! } },
    ];
    for (const remote of remotes) {
      expect(remote.url).toBe('http://localhost:3000/api/mcp');
      const client = new Client({ name: 'examples-test', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(local(remote.url)), { requestInit: { headers: remote.headers } }));
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('text__slugify');
        const call = await client.callTool({ name: 'text__slugify', arguments: { text: 'Config Works' } });
        expect(call.isError).toBeFalsy();
        expect(JSON.stringify(call.content)).toContain('config-works');
      } finally {
        await client.close();
      }
    }

    // The example's own check, as a newcomer runs it.
    const { code, output } = await run(...tsx('examples/mcp-clients/index.ts'), env);
    expect(code, output).toBe(0);
    for (const name of ['Claude Desktop', 'Cursor', 'VS Code']) {
      expect(output).toMatch(new RegExp(`^${name} .*: connected to ${s.url}/api/mcp, \\d+ tools, text__slugify -> .*hello-from`, 'm'));
    }
  }, 90_000);

  const receivers: [string, () => readonly [string, readonly string[]], string | undefined][] = [
    ['webhook-receiver-node', () => tsx('examples/webhook-receiver-node/index.ts'), undefined],
    ['webhook-receiver-python', () => [PYTHON, ['examples/webhook-receiver-python/receiver.py']] as const, noPython],
  ];
  for (const [name, command, skip] of receivers) {
    it.skipIf(skip !== undefined)(
      `${name}: a real delivery is verified and printed; a forged one is rejected`,
      async () => {
        const secret = `whsec_${randomBytes(24).toString('base64')}`;
        const receiver = start(...command(), { ...env, AMP_WEBHOOK_SECRET: secret, PORT: '0' });
        children.push(receiver);
        const [, url] = await receiver.waitFor(/listening on (http:\/\/\S+\/hooks)/);
        const hook = await amp.webhooks.create({ url: url!, events: ['execution.completed'], secret });
        try {
          const result = await amp.modules.execute('text', { action: 'slugify', input: { text: `Delivered to ${name}` } });
          const [line] = await receiver.waitFor(
            new RegExp(`^verified execution\\.completed evt_\\S+ .*"execution_id":"${result.execution_id}"`, 'm'),
          );
          expect(line).toContain(`delivered-to-${name}`);

          const forged = await fetch(url!, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'webhook-id': 'evt_forged',
              'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
              'webhook-signature': `v1,${randomBytes(32).toString('base64')}`,
            },
            body: '{"id":"evt_forged","event":"execution.completed","data":{}}',
          });
          expect(forged.status).toBe(400);
          await receiver.waitFor(/^rejected invalid_signature$/m);
          // A request no client library would send is answered too, not dropped.
          expect(await rawStatus(url!, 'POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}')).toBe(400);
        } finally {
          await amp.webhooks.delete(hook.id);
        }
      },
      90_000,
    );
  }
});
