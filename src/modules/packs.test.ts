import { describe, expect, it } from 'vitest';
import { builtinDefinitions } from './definitions';
import { isIoAction, PACK_LOADERS } from './packs';
import { BUILTIN_MODULES } from './registry';
import { loadPack, runBuiltinAction } from './run';

describe('lazily loaded module packs', () => {
  it('has a loader for every built-in pack, loading the very definition the catalog lists', async () => {
    expect(Object.keys(PACK_LOADERS).sort()).toEqual(BUILTIN_MODULES.map((m) => m.name).sort());
    for (const def of BUILTIN_MODULES) {
      const { default: loaded } = await PACK_LOADERS[def.name]!();
      expect(loaded).toBe(def);
    }
  });

  it('names exactly the io actions the packs mark', () => {
    for (const def of BUILTIN_MODULES) for (const a of def.actions) expect(isIoAction(def.name, a.name), `${def.name}.${a.name}`).toBe(a.io === true);
  });

  it('reads every definition, without its code, in a worker thread', async () => {
    const definitions = await builtinDefinitions();
    expect(definitions).toEqual(BUILTIN_MODULES.map((m) => ({ ...m, actions: m.actions.map(({ run: _run, ...a }) => a) })));
    expect(await builtinDefinitions()).toBe(definitions);
  });

  it('runs an action of a pack not loaded before, and refuses names that are no pack', async () => {
    expect(await runBuiltinAction({ module: 'text', action: 'slugify', input: { text: 'Hello World' }, timeoutMs: 5000, allowPrivateNetwork: false })).toEqual({
      ok: true,
      output: expect.objectContaining({ slug: 'hello-world' }),
    });
    expect(await loadPack('constructor')).toBe(false);
    expect(await loadPack('nope')).toBe(false);
    expect(await runBuiltinAction({ module: 'nope', action: 'x', input: {}, timeoutMs: 5000, allowPrivateNetwork: false })).toMatchObject({ ok: false, code: 'module_error' });
  });
});
