import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeSnippet, pythonSnippet } from '../../components/dashboard/webhooks/verify-snippets';
import { generateWebhookSecret } from '../../src/lib/secrets';
import { deliveryHeaders } from '../../src/webhooks/envelope';

const run = promisify(execFile);
/** Python runs the Python snippet; without it that test is reported as skipped, not passed. */
const hasPython = spawnSync('python3', ['--version']).status === 0;

/**
 * The dashboard's signature-verification snippets, run for real against deliveries signed by the
 * service's own code (deliveryHeaders): a generated whsec_ secret, a caller-chosen one, a
 * legacy base64url whsec_ secret; a tampered body, a wrong secret and an old timestamp fail.
 */
describe('webhook verification snippets (dashboard)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-snippets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const body = JSON.stringify({
    id: 'evt_1',
    event: 'execution.completed',
    timestamp: new Date().toISOString(),
    data: { ok: true, text: 'héllo' },
  });
  const legacy = `whsec_${Buffer.from('legacy-secret-bytes-24-xx>?~').toString('base64url')}`;
  const secrets = [generateWebhookSecret(), 'my-own-chosen-secret', legacy];
  const meta = { eventId: 'evt_1', eventType: 'execution.completed', deliveryId: 'dlv_1', attempt: 1 };

  /** [secret, body, headers, expected] */
  const cases = secrets.flatMap((secret) => {
    const headers = deliveryHeaders(secret, body, meta);
    return [
      [secret, body, headers, true],
      [secret, body.replace('héllo', 'hello'), headers, false],
      [secret, body, deliveryHeaders(`${secret}x`, body, meta), false],
      [secret, body, deliveryHeaders(secret, body, meta, Date.now() - 600_000), false],
    ] as const;
  });

  it('Node: verifies exactly the genuine deliveries', async () => {
    for (const [i, [secret, raw, headers, expected]] of cases.entries()) {
      const file = path.join(dir, `verify-${i}.mjs`);
      writeFileSync(file, nodeSnippet({ value: secret }));
      const { verifyWebhook } = (await import(pathToFileURL(file).href)) as {
        verifyWebhook: (raw: Buffer, headers: Record<string, string>) => boolean;
      };
      expect(verifyWebhook(Buffer.from(raw), headers), `case ${i}`).toBe(expected);
    }
    // The placeholder form reads the secret from the environment.
    expect(nodeSnippet({ masked: '…abcd' })).toContain('process.env.WEBHOOK_SECRET; // your signing secret (ends in abcd)');
  });

  it.skipIf(!hasPython)('Python: verifies exactly the genuine deliveries', async () => {
    for (const [i, [secret, raw, headers, expected]] of cases.entries()) {
      const file = path.join(dir, `verify_${i}.py`);
      writeFileSync(
        file,
        `${pythonSnippet({ value: secret })}\nimport json, sys\nprint(json.dumps(verify_webhook(${JSON.stringify(raw)}.encode(), json.loads(${JSON.stringify(JSON.stringify(headers))}))))\n`,
      );
      const { stdout } = await run('python3', [file]);
      expect(JSON.parse(stdout), `case ${i}`).toBe(expected);
    }
    expect(pythonSnippet()).toContain('os.environ["WEBHOOK_SECRET"]');
  });
});
