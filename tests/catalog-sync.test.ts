/**
 * The built-in packs' catalog rows at start-up (src/catalog/sync.ts): a start whose definitions
 * match the rows writes nothing, so a module's `updated_at` (which caches, definition hashes and
 * certification key on) stays; a pack whose row or actions differ is written back whole, and only
 * its `updated_at` moves.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { syncBuiltinModules } from '../src/catalog/sync';
import type { Database } from '../src/db';
import { moduleActions, modules } from '../src/db/schema';
import { builtinDefinitions } from '../src/modules/definitions';
import { backends, openTestDatabase } from './harness';

backends.describe('built-in catalog sync (%s)', (backend) => {
  let database: Database;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase(backend));
    await syncBuiltinModules(database.db);
  });
  afterAll(() => close?.());

  const updatedAt = async () =>
    new Map((await database.db.select({ name: modules.name, at: modules.updatedAt }).from(modules)).map((r) => [r.name, r.at.getTime()]));
  const slugify = and(eq(moduleActions.moduleName, 'text'), eq(moduleActions.name, 'slugify'));

  it('writes nothing when every definition matches its rows', async () => {
    const before = await updatedAt();
    await syncBuiltinModules(database.db);
    expect(await updatedAt()).toEqual(before);
    const names = (await builtinDefinitions()).map((d) => d.name);
    expect([...before.keys()].sort()).toEqual([...names].sort());
  });

  it('writes back a pack whose action differs, is missing or is extra, and moves only its updated_at', async () => {
    const { description } = (await database.db.select().from(moduleActions).where(slugify))[0]!;
    const before = await updatedAt();

    await database.db.update(moduleActions).set({ description: 'changed behind its back' }).where(slugify);
    await syncBuiltinModules(database.db);
    expect((await database.db.select().from(moduleActions).where(slugify))[0]!.description).toBe(description);
    const afterChange = await updatedAt();
    expect(afterChange.get('text')).toBeGreaterThan(before.get('text')!);
    for (const [name, at] of afterChange) if (name !== 'text') expect(at, name).toBe(before.get(name));

    await database.db.delete(moduleActions).where(slugify);
    const [extra] = await database.db.select().from(moduleActions).where(eq(moduleActions.moduleName, 'json')).limit(1);
    await database.db.insert(moduleActions).values({ ...extra!, name: 'not_in_the_pack' });
    await syncBuiltinModules(database.db);
    expect(await database.db.select().from(moduleActions).where(slugify)).toHaveLength(1);
    expect(
      await database.db
        .select()
        .from(moduleActions)
        .where(and(eq(moduleActions.moduleName, 'json'), eq(moduleActions.name, 'not_in_the_pack'))),
    ).toEqual([]);
    const afterRepair = await updatedAt();
    expect(afterRepair.get('json')).toBeGreaterThan(before.get('json')!);
    expect(afterRepair.get('csv')).toBe(before.get('csv'));
  });
});
