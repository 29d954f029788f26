import { asc, eq } from 'drizzle-orm';
import type { ModuleCache } from '../catalog/snapshot';
import type { Db } from '../db';
import type { Services } from '../services';
import { moduleActions, modules, type ModuleActionRow, type ModuleRow } from '../db/schema';

export interface PublicModule {
  module: ModuleRow;
  actions: ModuleActionRow[];
}

const byCategoryThenName = (a: PublicModule, b: PublicModule) =>
  a.module.category < b.module.category
    ? -1
    : a.module.category > b.module.category
      ? 1
      : a.module.name < b.module.name
        ? -1
        : a.module.name > b.module.name
          ? 1
          : 0;

/**
 * Every public module with its actions, by category then name: what the discovery documents
 * describe. With `cache`, from the in-process catalog snapshot (src/catalog/snapshot.ts).
 */
export async function publicCatalog(db: Db, cache?: ModuleCache): Promise<PublicModule[]> {
  if (cache) {
    const snapshot = await cache.snapshot(db);
    return snapshot.memo('discovery:by-category', () => [...snapshot.modules].sort(byCategoryThenName));
  }
  const rows = await db.select().from(modules).where(eq(modules.visibility, 'public')).orderBy(asc(modules.category), asc(modules.name));
  const actions = await db.select().from(moduleActions).orderBy(asc(moduleActions.moduleName), asc(moduleActions.position));
  return rows.map((m) => ({ module: m, actions: actions.filter((a) => a.moduleName === m.name) }));
}

/**
 * A discovery document (llms.txt, the agent card) rendered from the public catalog once per
 * catalog snapshot and kept as encoded bytes: served as they are until a module changes.
 */
export async function discoveryDocument(
  svc: Pick<Services, 'db' | 'moduleCache'>,
  key: string,
  render: (catalog: PublicModule[]) => string,
): Promise<Buffer> {
  const snapshot = await svc.moduleCache.snapshot(svc.db);
  const catalog = await publicCatalog(svc.db, svc.moduleCache);
  return snapshot.memo(`document:${key}`, () => Buffer.from(render(catalog)));
}
