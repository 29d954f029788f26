/**
 * The Python client (packages/python, package `amp_client`) against a real service: vitest
 * starts the service (embedded PGlite), registers a Pro tenant and runs the package's unittest
 * suite (live calls, retries and the event stream against local servers, webhook verification)
 * with `python3`, passing the address and key (AMP_BASE_URL, AMP_API_KEY) and webhook
 * vectors signed by the TypeScript SDK (AMP_WEBHOOK_VECTORS). Skipped when `python3` is absent.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../packages/sdk/src/index';
import { startTestServer, type TestServer } from '../harness';

const PYTHON = 'python3';
const probe = spawnSync(PYTHON, ['-c', 'import sys; print(sys.version_info >= (3, 9))'], { encoding: 'utf8' });
const noPython = probe.status === 0 && probe.stdout.trim() === 'True' ? undefined : 'python3 (3.9 or later) is not installed';
if (noPython) console.log(`tests/sdk/python.test.ts skipped: ${noPython}`);

const PACKAGE_DIR = path.resolve('packages/python');

/** Secrets of every form the service accepts, each body signed by the TypeScript SDK. */
function vectors() {
  const now = Math.floor(Date.now() / 1000);
  const secrets = [
    `whsec_${randomBytes(24).toString('base64')}`,
    `whsec_${Buffer.from([0xfb, 0xff, 0xfe, ...randomBytes(21)]).toString('base64url')}`,
    'a chosen raw secret ünïcode',
  ];
  return secrets.flatMap((secret, i) => {
    const body = JSON.stringify({
      id: `evt_${i}`,
      event: 'execution.completed',
      timestamp: new Date().toISOString(),
      data: { n: i, s: 'é' },
    });
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    const one = { secret, id: `evt_${i}`, timestamp: now, body, signature: signWebhook(secret, `evt_${i}`, now, body) };
    // Two signatures, as while a rotated-out secret still signs.
    return [one, { ...one, signature: `${one.signature} ${signWebhook(other, one.id, now, body)}` }];
  });
}

describe.skipIf(noPython !== undefined)('Python client against the service (embedded)', () => {
  let s: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    s = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    const t = await s.register();
    await s.setPlan(t.tenantId, 'pro');
    apiKey = t.apiKey;
  });
  afterAll(async () => s?.close());

  it('the unittest suite (live, retries, webhook verification) passes with nothing skipped', async () => {
    const run = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        PYTHON,
        ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'],
        {
          cwd: PACKAGE_DIR,
          encoding: 'utf8',
          env: {
            ...process.env,
            PYTHONDONTWRITEBYTECODE: '1',
            AMP_BASE_URL: s.url,
            AMP_API_KEY: apiKey,
            AMP_WEBHOOK_VECTORS: JSON.stringify(vectors()),
          },
          timeout: 120_000,
        },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    if (run.code !== 0) console.log(run.output);
    expect(run.code).toBe(0);
    const ran = Number(/Ran (\d+) tests?/.exec(run.output)?.[1]);
    expect(ran).toBeGreaterThanOrEqual(17);
    expect(run.output).toMatch(/\nOK\s*$/);
    expect(run.output).not.toMatch(/skipped/);
  });
});
