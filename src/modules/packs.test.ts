import { describe, expect, it } from 'vitest';
import { PACK_LOADERS } from './packs';
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
