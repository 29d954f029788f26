import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';
import { objectSchema, uniqueName } from '../module-fixtures';

/**
 * The JavaScript sandbox's per-tenant share (docs/decisions.md, Fair execution): a tenant whose
 * guest code loops until its deadline holds at most half the workers, so another tenant's module
 * runs at once instead of being refused with 429 `capacity` after the admission wait.
 */
const SOURCE = `
function handle(action, input) {
  if (action === 'spin') while (true) {}
  return { sum: input.a + input.b };
}`;

const jsModule = (name: string) => ({
  name,
  version: '1.0.0',
  title: `Spinner ${name}`,
  description: 'Adds, or loops until its deadline.',
  category: 'math',
  tags: ['math'],
  runtime: { type: 'javascript', source: SOURCE },
  actions: [
    {
      name: 'add',
      description: 'Adds two numbers.',
      input_schema: objectSchema({ a: { type: 'number' }, b: { type: 'number' } }),
      output_schema: objectSchema({ sum: { type: 'number' } }),
      examples: [{ input: { a: 1, b: 2 }, output: { sum: 3 } }],
    },
    {
      name: 'spin',
      description: 'Loops until its deadline.',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      examples: [{ input: {}, output: {} }],
      timeout_ms: 8000,
    },
  ],
});

backends.describe('sandbox worker share per tenant (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      backend,
      // Two workers whatever the machine; a short admission wait; no certification run taking workers.
      env: { SANDBOX_WORKERS: '2', EXECUTION_QUEUE_WAIT_MS: '1000', CERTIFICATION_PUBLISH_DELAY_MS: '86400000' },
    });
  }, 120_000);
  afterAll(async () => s?.close());

  const execute = (key: string, module: string, action: string, input: unknown) =>
    s.call(`/api/v1/modules/${module}/execute`, { key, body: { action, input } });
  const publish = async (key: string) => {
    const name = uniqueName('spinner');
    const res = await s.call('/api/v1/modules', { key, body: jsModule(name) });
    expect(res.status, res.text).toBe(201);
    // Installs it and starts the sandbox's workers.
    expect((await execute(key, name, 'add', { a: 1, b: 1 })).status).toBe(200);
    return name;
  };

  it("a tenant looping in guest code holds one of two workers: another tenant's module runs, and the looping tenant's excess is refused", async () => {
    const q = s.svc.sandbox.queue;
    expect(q.capacity).toBe(2);
    const a = await s.register();
    const b = await s.register();
    const aModule = await publish(a.apiKey);
    const bModule = await publish(b.apiKey);

    const first = execute(b.apiKey, bModule, 'spin', {});
    await vi.waitFor(() => expect(q.heldBy(b.tenantId)).toBe(1), { timeout: 30_000, interval: 20 });
    const excess = [execute(b.apiKey, bModule, 'spin', {}), execute(b.apiKey, bModule, 'spin', {})];
    // B's three loops are all admitted or waiting before A calls.
    await vi.waitFor(() => expect(q.inUse + q.waitingCount).toBe(3), { timeout: 30_000, interval: 20 });

    const call = await execute(a.apiKey, aModule, 'add', { a: 2, b: 40 });
    expect(call.status, call.text).toBe(200);
    expect(call.body).toMatchObject({ status: 'success', output: { sum: 42 } });

    // B's calls past its share waited for its own worker and were refused after the admission wait.
    for (const refused of await Promise.all(excess)) {
      expectError(refused, 429, 'concurrency_limit_exceeded');
      expect(refused.body).toMatchObject({ reason: 'capacity' });
    }
    expectError(await first, 504, 'timeout');
    await vi.waitFor(() => expect(q.inUse).toBe(0), { timeout: 30_000, interval: 20 });
  }, 120_000);
});
