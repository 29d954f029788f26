/**
 * Callers' JSONata expressions (chain `map`, workflow `map` and `if`) run in the action worker
 * pool with a deadline and a heap limit (src/executions/expressions.ts), never on the event loop:
 * a catastrophic regex or a runaway built-in fails the step, and the service keeps answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateCondition } from '../../src/workflows/templates';
import { startTestServer, type TestServer } from '../harness';

describe("callers' JSONata expressions", () => {
  let s: TestServer;
  let key: string;
  let tenantId: string;
  beforeAll(async () => {
    s = await startTestServer();
    ({ apiKey: key, tenantId } = await s.register());
  });
  afterAll(async () => {
    await s?.close();
  });

  const chainWithMap = (map: string, text: string) =>
    s.call('/api/v1/chain', { key, body: { input: { text }, steps: [{ module: 'text', action: 'word_count', map }] } });

  it('a backtracking regex in a chain map fails its step at the deadline; the service answers meanwhile', async () => {
    const chain = chainWithMap('{ "text": $replace(text, /(a+)+$/, "x") }', `${'a'.repeat(40)}!`);
    // Asked while the map runs: answered at once, not after it.
    const health = await s.call('/api/v1/health');
    expect(health.status).toBe(200);
    const res = await chain;
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.steps[0].error).toEqual({
      code: 'invalid_input',
      message: 'The map expression failed: it did not finish within 1000 ms',
    });
    expect(res.body.steps[0].execution_id).toBeNull();
  });

  it('a built-in asked for a huge string fails its step; the same expression shapes work as before', async () => {
    const huge = await chainWithMap('{ "text": $pad("", 100000000, "ab") }', 'x');
    expect(huge.body.status).toBe('failed');
    expect(huge.body.steps[0].error.message).toMatch(
      /^The map expression failed: it (did not finish within 1000 ms|used more memory than an expression may)$/,
    );

    const ok = await chainWithMap('{ "text": $replace($uppercase(text), /O+/, "0") }', 'foo boo');
    expect(ok.body.status, ok.text).toBe('success');
    expect(ok.body.output.words).toBe(2);
    const bad = await chainWithMap('{ "text": $number("x") }', 'x');
    expect(bad.body.steps[0].error.message).toMatch(/^The map expression failed: /);
  });

  it('workflow conditions follow JSONata truthiness', async () => {
    const context = { input: { list: [1, 'two'] }, steps: { a: { output: { result: 42 } } } };
    expect(await evaluateCondition(s.svc, tenantId, 'steps.a.output.result > 40', context)).toBe(true);
    expect(await evaluateCondition(s.svc, tenantId, 'input.missing', context)).toBe(false);
    expect(await evaluateCondition(s.svc, tenantId, 'input.list', context)).toBe(true);
    expect(await evaluateCondition(s.svc, tenantId, '""', context)).toBe(false);
    await expect(
      evaluateCondition(s.svc, tenantId, '$replace("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /(a+)+$/, "")', context),
    ).rejects.toThrow(/did not finish within 1000 ms/);
  });
});
