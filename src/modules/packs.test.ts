import { beforeAll, describe, expect, it, vi } from 'vitest';

// Test files share a worker's modules (vitest.config.ts): these tests need the definitions not
// read and the packs not loaded yet, so they import modules of their own.
let builtinAction: typeof import('./definitions').builtinAction;
let builtinDefinitions: typeof import('./definitions').builtinDefinitions;
let PACK_LOADERS: typeof import('./packs').PACK_LOADERS;
let BUILTIN_MODULES: typeof import('./registry').BUILTIN_MODULES;
let loadPack: typeof import('./run').loadPack;
let runBuiltinAction: typeof import('./run').runBuiltinAction;
beforeAll(async () => {
  vi.resetModules();
  ({ builtinAction, builtinDefinitions } = await import('./definitions'));
  ({ PACK_LOADERS } = await import('./packs'));
  ({ BUILTIN_MODULES } = await import('./registry'));
  ({ loadPack, runBuiltinAction } = await import('./run'));
});

describe('lazily loaded module packs', () => {
  it('has a loader for every built-in pack, loading the very definition the catalog lists', async () => {
    expect(Object.keys(PACK_LOADERS).sort()).toEqual(BUILTIN_MODULES.map((m) => m.name).sort());
    for (const def of BUILTIN_MODULES) {
      const { default: loaded } = await PACK_LOADERS[def.name]!();
      expect(loaded).toBe(def);
    }
  });

  it('reads every definition, without its code, in a child process', async () => {
    expect(() => builtinAction('text', 'slugify')).toThrow(/not read yet/);
    const definitions = await builtinDefinitions();
    expect(definitions).toEqual(BUILTIN_MODULES.map((m) => ({ ...m, actions: m.actions.map(({ run: _run, ...a }) => a) })));
    expect(await builtinDefinitions()).toBe(definitions);
  });

  it('then answers each action, its io and inline marks included, synchronously', async () => {
    await builtinDefinitions();
    for (const def of BUILTIN_MODULES) {
      for (const { run: _run, ...a } of def.actions) expect(builtinAction(def.name, a.name), `${def.name}.${a.name}`).toEqual(a);
    }
    expect(builtinAction('text', 'nope')).toBeUndefined();
    expect(builtinAction('constructor', 'name')).toBeUndefined();
  });

  it('runs an action of a pack not loaded before, and refuses names that are no pack', async () => {
    expect(
      await runBuiltinAction({
        module: 'text',
        action: 'slugify',
        input: { text: 'Hello World' },
        timeoutMs: 5000,
        allowPrivateNetwork: false,
      }),
    ).toEqual({
      ok: true,
      output: expect.objectContaining({ slug: 'hello-world' }),
    });
    expect(await loadPack('constructor')).toBe(false);
    expect(await loadPack('nope')).toBe(false);
    expect(await runBuiltinAction({ module: 'nope', action: 'x', input: {}, timeoutMs: 5000, allowPrivateNetwork: false })).toMatchObject({
      ok: false,
      code: 'module_error',
    });
  });
});
