/**
 * `amp webhooks listen --forward URL`: against a real service (embedded) as a child process — an
 * execution's event reaches a local receiver signed with the printed secret and verifies with the
 * SDK's verifyWebhook; Ctrl-C stops it with exit 0 — and in-process against a scripted event
 * stream that drops the connection, to check the reconnect resumes with Last-Event-ID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile, EXIT, runCli } from '../../packages/sdk/src/cli';
import { Amp, verifyWebhook } from '../../packages/sdk/src/index';
import { startTestServer, type TestServer } from '../harness';
import { startReceiver } from '../receiver';

const CLI = path.resolve('packages/sdk/src/cli.ts');

/** The child's stdout as JSON lines, with a wait for the first line matching `test`. */
function jsonLines(child: ChildProcess) {
  const lines: Record<string, any>[] = [];
  let buffer = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) lines.push(JSON.parse(line) as Record<string, any>);
    }
    for (const w of [...waiters]) w();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return {
    lines,
    stderr: () => stderr,
    waitFor(test: (line: Record<string, any>) => boolean, timeoutMs = 20_000): Promise<Record<string, any>> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(test);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching line; stdout: ${JSON.stringify(lines)} stderr: ${stderr}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

describe('amp webhooks listen (embedded)', () => {
  let s: TestServer;
  let apiKey: string;
  let configDir: string;
  beforeAll(async () => {
    s = await startTestServer();
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    apiKey = t.apiKey;
    configDir = mkdtempSync(path.join(tmpdir(), 'amp-listen-'));
  });
  afterAll(async () => {
    await s?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('forwards an execution event to the receiver signed with the stored secret; Ctrl-C stops it cleanly', async () => {
    const receiver = await startReceiver();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'webhooks', 'listen', '--forward', receiver.url, '--api-key', apiKey, '--base-url', s.url, '--json'],
      { env: { ...process.env, AMP_CONFIG_DIR: configDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const out = jsonLines(child);
      const { secret } = await out.waitFor((l) => l.type === 'secret');
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(JSON.parse(readFileSync(configFile({ AMP_CONFIG_DIR: configDir }), 'utf8'))).toMatchObject({ listen_secret: secret });
      await out.waitFor((l) => l.type === 'ready');

      const amp = new Amp({ apiKey }, { baseUrl: s.url });
      const result = await amp.modules.execute('text', { action: 'slugify', input: { text: 'Listen Here' } });
      const [delivery] = await receiver.waitFor(1, { filter: (r) => r.headers['x-webhook-event'] === 'execution.completed' });
      const envelope = verifyWebhook(delivery!.raw, delivery!.headers, secret);
      expect(envelope).toMatchObject({
        id: delivery!.headers['webhook-id'],
        event: 'execution.completed',
        data: { execution_id: result.execution_id, module: 'text', action: 'slugify', output: { slug: 'listen-here' } },
      });
      expect(Object.keys(delivery!.body).sort()).toEqual(['data', 'event', 'id', 'timestamp']);
      expect(() => verifyWebhook(delivery!.raw, delivery!.headers, 'whsec_' + Buffer.alloc(24, 1).toString('base64'))).toThrow(/signature/);
      const forwarded = await out.waitFor((l) => l.type === 'forwarded' && l.event === 'execution.completed');
      expect(forwarded).toMatchObject({ id: envelope.id, status: 200, error: null });

      child.kill('SIGINT');
      expect(await exited).toBe(EXIT.ok);
      expect(out.lines.at(-1)).toEqual({ type: 'stopped' });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await receiver.close();
    }
  });

  it('a second run reuses the stored secret; --secret overrides it; a free plan is refused with exit 3', async () => {
    const stored = JSON.parse(readFileSync(configFile({ AMP_CONFIG_DIR: configDir }), 'utf8')).listen_secret as string;
    const run = async (args: string[], key = apiKey) => {
      const stop = new AbortController();
      let stdout = '';
      let stderr = '';
      const done = runCli(['webhooks', 'listen', '--forward', 'http://127.0.0.1:9/x', '--api-key', key, '--base-url', s.url, ...args], {
        env: { AMP_CONFIG_DIR: configDir },
        stdout: (t) => {
          stdout += t;
          if (t.includes('Ready:')) stop.abort();
        },
        stderr: (t) => (stderr += t),
        signal: stop.signal,
      });
      return { code: await done, stdout, stderr };
    };
    const again = await run([]);
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toContain(`Signing secret: ${stored}`);
    expect(again.stdout).toMatch(/Stopped\.\n$/);
    const chosen = await run(['--secret', 'whsec_bXktb3duLXNlY3JldC1vZi0yNC1ieXQ=']);
    expect(chosen.stdout).toContain('Signing secret: whsec_bXktb3duLXNlY3JldC1vZi0yNC1ieXQ=\n');

    const free = await s.register();
    const refused = await run([], free.apiKey);
    expect(refused.code).toBe(EXIT.auth);
    expect(refused.stderr).toMatch(/403 plan_required/);
    expect(await runCli(['webhooks', 'listen'], { env: { AMP_CONFIG_DIR: configDir }, stdout: () => {}, stderr: () => {} })).toBe(
      EXIT.usage,
    );
  });

  it('a service that never answers is exit 6, naming the address and the reason, not retried for ever', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    let stderr = '';
    const code = await runCli(
      ['webhooks', 'listen', '--forward', 'http://127.0.0.1:9/x', '--api-key', apiKey, '--base-url', `http://127.0.0.1:${port}`],
      { env: { AMP_CONFIG_DIR: configDir }, stdout: () => {}, stderr: (t) => (stderr += t) },
    );
    expect(code).toBe(EXIT.connection);
    expect(stderr).toContain(`GET http://127.0.0.1:${port}/api/v1/events/stream failed: connect ECONNREFUSED`);
  });
});

describe('amp webhooks listen: reconnects after a drop with Last-Event-ID', () => {
  it('resumes after the last forwarded event, losing and repeating nothing', async () => {
    const seen: (string | undefined)[] = [];
    const envelope = (id: string) =>
      JSON.stringify({ id, event: 'execution.completed', timestamp: new Date().toISOString(), data: { n: id } });
    const stream = http.createServer((req, res) => {
      seen.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (seen.length === 1) {
        res.write(`retry: 20\n: connected\n\nid: evt_1\nevent: execution.completed\ndata: ${envelope('evt_1')}\n\n`);
        // The connection drops after the first event.
        setTimeout(() => res.socket?.destroy(), 50);
      } else {
        res.write(`retry: 20\n: connected\n\nid: evt_2\r\nevent: execution.completed\r\ndata: ${envelope('evt_2')}\r\n\r\n`);
      }
    });
    await new Promise<void>((resolve) => stream.listen(0, '127.0.0.1', resolve));
    const receiver = await startReceiver();
    const configDir = mkdtempSync(path.join(tmpdir(), 'amp-listen-'));
    const stop = new AbortController();
    let stdout = '';
    let stderr = '';
    try {
      const done = runCli(
        [
          'webhooks',
          'listen',
          '--forward',
          receiver.url,
          '--api-key',
          'amp_test',
          '--base-url',
          `http://127.0.0.1:${(stream.address() as AddressInfo).port}`,
        ],
        { env: { AMP_CONFIG_DIR: configDir }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), signal: stop.signal },
      );
      const received = await receiver.waitFor(2);
      // Stop once the second forward's answer is printed (an abort cuts a forward in flight).
      for (let i = 0; i < 100 && !/evt_2 {2}-> /.test(stdout); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      stop.abort();
      expect(await done).toBe(EXIT.ok);
      expect(received.map((r) => r.body.id)).toEqual(['evt_1', 'evt_2']);
      expect(seen).toEqual([undefined, 'evt_1']);
      const secret = JSON.parse(readFileSync(configFile({ AMP_CONFIG_DIR: configDir }), 'utf8')).listen_secret as string;
      for (const r of received) expect(verifyWebhook(r.raw, r.headers, secret).id).toBe(r.headers['webhook-id']);
      expect(stdout).toMatch(/Reconnected \(resuming after evt_1\)/);
      expect(stdout).toMatch(/execution\.completed {2}evt_2 {2}-> 200/);
      expect(stderr).toMatch(/Stream dropped/);
    } finally {
      stop.abort();
      await receiver.close();
      stream.closeAllConnections();
      await new Promise((resolve) => stream.close(resolve));
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
