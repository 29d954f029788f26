import { describe, expect, it } from 'vitest';
import { MAX_OUTPUT_DEPTH, runSandboxTask } from './javascript';
import { JavaScriptSandbox } from './sandbox';

const run = (source: string, input: unknown = {}, timeoutMs = 500, action = 'go') =>
  runSandboxTask({ kind: 'run', source, action, input, timeoutMs });
const check = (source: string, timeoutMs = 500) => runSandboxTask({ kind: 'check', source, timeoutMs });

describe('javascript runtime sandbox (QuickJS)', () => {
  it('calls handle(action, input) and returns its JSON output', async () => {
    expect(
      await run('function handle(action, input) { return { action, sum: input.a + input.b, list: [1, "x", null, true] } }', { a: 2, b: 3 }),
    ).toEqual({
      ok: true,
      output: { action: 'go', sum: 5, list: [1, 'x', null, true] },
    });
    expect(await run('function handle() { return undefined }')).toEqual({ ok: true, output: null });
    expect(await run('function handle() { return "text" }')).toEqual({ ok: true, output: 'text' });
    expect(await run('async function handle(a, i) { await null; return i.x * 2 }', { x: 21 })).toEqual({ ok: true, output: 42 });
    // Replacing JSON inside the guest does not change how input and output cross the boundary.
    expect(await run('JSON.parse = () => 1; JSON.stringify = () => "{bad"; function handle(a, i) { return i }', { k: 'v' })).toEqual({
      ok: true,
      output: { k: 'v' },
    });
  });

  it('maps guest errors: InputError -> invalid_input, others -> module_error without host stack', async () => {
    expect(await run('function handle() { throw new InputError("x must be positive") }')).toEqual({
      ok: false,
      code: 'invalid_input',
      message: 'x must be positive',
    });
    const thrown = await run('function handle() { throw new TypeError("nope") }');
    expect(thrown).toEqual({ ok: false, code: 'module_error', message: 'TypeError: nope' });
    expect(await run('function handle() { throw "plain string" }')).toEqual({
      ok: false,
      code: 'module_error',
      message: 'Uncaught plain string',
    });
    expect(await run('async function handle() { throw new Error("async boom") }')).toEqual({
      ok: false,
      code: 'module_error',
      message: 'Error: async boom',
    });
    const long = await run('function handle() { throw new Error("x".repeat(5000)) }');
    expect(long.ok === false && long.message.length).toBeLessThanOrEqual(500);
    expect(await run('function handle() { return 1n }')).toMatchObject({
      ok: false,
      code: 'module_error',
      message: expect.stringContaining('BigInt'),
    });
    expect(await run('function handle() { const a = {}; a.a = a; return a }')).toMatchObject({ ok: false, code: 'module_error' });
    expect(await run('function handle() { return new Promise(() => {}) }')).toMatchObject({
      ok: false,
      code: 'module_error',
      message: expect.stringContaining('never settled'),
    });
  });

  it('stops runaway code at the deadline: loops, catch-all loops, regex, promise loops', async () => {
    for (const source of [
      'function handle() { while (true) {} }',
      'function handle() { for (;;) { try { while (true) {} } catch (e) {} } }',
      'function handle() { return /^(a+)+$/.test("a".repeat(40) + "!") }',
      'async function handle() { for (;;) await null }',
      'while (true) {} function handle() {}',
    ]) {
      const started = Date.now();
      expect(await run(source, {}, 200), source).toMatchObject({ ok: false, code: 'timeout' });
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });

  it('contains memory bombs and deep recursion as module errors', async () => {
    expect(await run('function handle() { return "a".repeat(1 << 29).length }')).toMatchObject({
      ok: false,
      code: 'module_error',
      message: expect.stringContaining('memory'),
    });
    expect(await run('function handle() { return new Array(1e9).fill(0).length }', {}, 5000)).toMatchObject({
      ok: false,
      code: 'module_error',
      message: expect.stringContaining('memory'),
    });
    // Many allocations each under QuickJS's own limit: the WebAssembly memory's ceiling stops them.
    const buffers =
      'function handle() { var a = []; for (var i = 0; i < 20; i++) a.push(new ArrayBuffer(16 * 1024 * 1024)); return a.length }';
    expect(await run(buffers, {}, 5000)).toMatchObject({ ok: false, code: 'module_error', message: expect.stringContaining('memory') });
    const arrays = 'function handle() { var a = []; for (var i = 0; i < 200; i++) a.push(new Float64Array(100000)); return a.length }';
    expect(await run(arrays, {}, 5000)).toMatchObject({ ok: false, code: 'module_error', message: expect.stringContaining('memory') });
    // And the sandbox still runs the next task normally.
    expect(await run('function handle() { return 1 + 1 }')).toEqual({ ok: true, output: 2 });
    expect(await run('function f(n) { return f(n + 1) + 1 } function handle() { return f(0) }')).toMatchObject({
      ok: false,
      code: 'module_error',
      message: expect.stringContaining('stack'),
    });
    expect(await run('function handle() { return JSON.stringify(new Array(1e6).fill("x".repeat(100))) }', {}, 5000)).toMatchObject({
      ok: false,
      code: 'module_error',
    });
    // The sandbox still works afterwards.
    expect(await run('function handle() { return 1 }')).toEqual({ ok: true, output: 1 });
  });

  it('exposes no host API and keeps no state between runs', async () => {
    const probe = await run(`function handle() {
      return ['fetch', 'require', 'process', 'console', 'setTimeout', 'std', 'os', 'globalThis.Deno', 'Bun', 'module', 'XMLHttpRequest', 'WebAssembly', 'import.meta']
        .map((n) => { try { return n + ':' + eval('typeof ' + n) } catch (e) { return n + ':error' } });
    }`);
    expect(probe.ok && (probe.output as string[]).every((s) => s.endsWith(':undefined') || s.endsWith(':error'))).toBe(true);
    expect(
      await run('function handle() { return (function(){ return this })() === globalThis && typeof Function("return this")().process }'),
    ).toEqual({ ok: true, output: 'undefined' });
    expect(await run('function handle() { return import("fs") }')).toMatchObject({ ok: false, code: 'module_error' });
    await run('globalThis.leak = 42; function handle() { return 1 }');
    expect(await run('function handle() { return typeof leak }')).toEqual({ ok: true, output: 'undefined' });
  });

  it('checks source at publish time: syntax, missing handle, module syntax, runaway top level', async () => {
    expect(await check('function handle(action, input) { return input }')).toEqual({ ok: true, output: null });
    expect(await check('function handle( {')).toMatchObject({
      ok: false,
      code: 'module_error',
      message: expect.stringMatching(/^SyntaxError: .*\(line 1\)$/),
    });
    expect(await check('function run(action, input) { return input }')).toMatchObject({
      ok: false,
      message: expect.stringContaining('handle(action, input)'),
    });
    expect(await check('export default function handle() {}')).toMatchObject({
      ok: false,
      code: 'module_error',
      message: expect.stringContaining('SyntaxError'),
    });
    expect(await check('const handle = 5')).toMatchObject({ ok: false, message: expect.stringContaining('handle(action, input)') });
    expect(await check('for (;;) {}', 200)).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('in the worker pool, a task the interrupt cannot stop in time is killed with its worker', async () => {
    const sandbox = new JavaScriptSandbox(1);
    try {
      expect(await sandbox.run('function handle(a, i) { return i.n + 1 }', 'go', { n: 1 }, 1000)).toEqual({ ok: true, output: 2 });
      // Each iteration spends long in native code, so QuickJS polls its interrupt handler rarely.
      const started = Date.now();
      // (Each string is freed by the next: memory stays bounded, so the run ends by the clock, not out of memory.)
      const slow = await sandbox.run('function handle() { let n = 0; for (;;) n += ("x".repeat(1 << 23) + n).length }', 'go', {}, 300);
      expect(slow).toMatchObject({ ok: false, code: 'timeout' });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await sandbox.run('function handle() { return "alive" }', 'go', {}, 1000)).toEqual({ ok: true, output: 'alive' });
      expect(await sandbox.check('function handle( {')).toMatchObject({ ok: false, code: 'module_error' });
    } finally {
      await sandbox.close();
    }
  }, 30_000);

  it('refuses an output nested deeper than MAX_OUTPUT_DEPTH (a module error, not a hung worker); the worker goes on', async () => {
    const sandbox = new JavaScriptSandbox(1);
    // n wraps of [] inside { a }: depth n + 2.
    const nested = (n: number) => `function handle() { let a = []; for (let i = 0; i < ${n}; i++) a = [a]; return { a } }`;
    try {
      const atLimit = await sandbox.run(nested(MAX_OUTPUT_DEPTH - 2), 'go', {}, 3000);
      expect(atLimit.ok).toBe(true);
      for (const n of [MAX_OUTPUT_DEPTH - 1, 10_000, 200_000]) {
        expect(await sandbox.run(nested(n), 'go', {}, 3000)).toEqual({
          ok: false,
          code: 'module_error',
          message: `The action output is nested deeper than ${MAX_OUTPUT_DEPTH} levels (or refers to itself).`,
        });
      }
      // A guest that replaces Object.keys does not get past the check (it captured the original).
      expect(await sandbox.run(`Object.keys = () => []; ${nested(10_000)}`, 'go', {}, 3000)).toMatchObject({
        ok: false,
        code: 'module_error',
      });
      expect(await sandbox.run('function handle() { return "alive" }', 'go', {}, 1000)).toEqual({ ok: true, output: 'alive' });
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});
