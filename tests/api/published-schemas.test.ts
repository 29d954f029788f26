/**
 * A published module's schemas are its publisher's: a small input can make ajv take exponential
 * (a recursive `anyOf`) or quadratic (`uniqueItems` over objects) time against them. Those checks
 * run in a sandbox worker under a deadline (src/executions/engine.ts `checkSchema`), at execute and
 * at publish, never on the event loop: the call fails cleanly and the service keeps answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from '../harness';

const SOURCE = 'function handle(action, input) { return { ok: true } }';
const module = (name: string, inputSchema: Record<string, unknown>, exampleInput: unknown = {}) => ({
  name,
  version: '1.0.0',
  title: 'Schema stress',
  description: 'A module whose schema is expensive to check.',
  category: 'data',
  tags: ['test'],
  visibility: 'private',
  runtime: { type: 'javascript', source: SOURCE },
  actions: [
    {
      name: 'go',
      description: 'Goes.',
      input_schema: inputSchema,
      output_schema: { type: 'object' },
      examples: [{ input: exampleInput, output: { ok: true } }],
    },
  ],
});

/** Each level doubles the work when the innermost value fails: both branches are tried all the way down. */
const EXPONENTIAL = {
  type: 'object',
  anyOf: [{ properties: { a: { $ref: '#' } } }, { properties: { a: { $ref: '#' } }, required: ['b'] }],
  properties: { z: { type: 'number' } },
};
const nested = (levels: number): Record<string, unknown> => (levels === 0 ? { z: 'not a number' } : { a: nested(levels - 1) });

describe("published modules' schemas are checked off the request thread", () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.register()).apiKey;
  });
  afterAll(async () => {
    await s?.close();
  });

  it('an input that takes a recursive anyOf exponential time fails at the deadline as a module error; the service answers meanwhile', async () => {
    const published = await s.call('/api/v1/modules', { key, body: module('schema-exp', EXPONENTIAL) });
    expect(published.status, published.text).toBe(201);
    // 2^30 branch checks on the request thread would take hours.
    const slow = s.call('/api/v1/modules/schema-exp/execute', { key, body: { action: 'go', input: nested(30) } });
    const health = await s.call('/api/v1/health');
    expect(health.status).toBe(200);
    const failed = expectError(await slow, 502, 'module_error');
    expect(failed.message).toBe("The action's input_schema took over 1000 ms to check this value; the input could not be validated.");
    expect(failed.execution).toMatchObject({ status: 'failed', error: { code: 'module_error' } });
    // Inputs the schema decides quickly behave as before.
    expect((await s.call('/api/v1/modules/schema-exp/execute', { key, body: { action: 'go', input: { z: 1 } } })).status).toBe(200);
    const refused = expectError(
      await s.call('/api/v1/modules/schema-exp/execute', { key, body: { action: 'go', input: nested(3) } }),
      422,
      'invalid_input',
    );
    expect(refused.issues.length).toBeGreaterThan(0);
  }, 60_000);

  it('an example that takes uniqueItems quadratic time is refused at publish, without holding the service', async () => {
    const items = Array.from({ length: 60_000 }, (_, i) => [i]);
    const publishing = s.call('/api/v1/modules', {
      key,
      body: module('schema-unique', { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } }, { xs: items }),
    });
    const health = await s.call('/api/v1/health');
    expect(health.status).toBe(200);
    const refused = expectError(await publishing, 400, 'invalid_request');
    expect(refused.issues).toContainEqual({
      path: 'actions.0.input_schema',
      message: 'Checking the example against the schema took over 1000 ms: simplify the schema or the example',
    });
  }, 60_000);
});
