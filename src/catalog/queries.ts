import { and, asc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db';
import { installations, moduleActions, modules, type ModuleActionRow, type ModuleRow } from '../db/schema';
import { MODULE_NAME } from './schema';
import type { ModuleCache } from './snapshot';

/** Public modules and the tenant's own: another tenant's private module does not exist here. */
export function visibleTo(tenantId: string): SQL {
  return or(eq(modules.visibility, 'public'), eq(modules.ownerTenantId, tenantId))!;
}

export interface ModuleWithActions {
  module: ModuleRow;
  actions: ModuleActionRow[];
  installed: boolean;
}

export { ModuleCache } from './snapshot';

/**
 * The module as the tenant may see it (public, or its own), with its actions and whether the
 * tenant installed it; undefined otherwise. Pass `cache` on read paths (the in-process catalog,
 * src/catalog/snapshot.ts); inside a transaction that changes the module, read it fresh.
 */
export async function findVisibleModule(
  db: Executor,
  tenantId: string,
  name: string,
  cache?: ModuleCache,
): Promise<ModuleWithActions | undefined> {
  // A name that cannot exist does not exist (paths take any string): no query for it.
  if (!MODULE_NAME.test(name)) return undefined;
  if (cache) return cache.findVisible(db, tenantId, name);
  const [module] = await db.select().from(modules).where(eq(modules.name, name)).limit(1);
  if (!module || (module.visibility !== 'public' && module.ownerTenantId !== tenantId)) return undefined;
  const [actions, [installed]] = await Promise.all([
    db.select().from(moduleActions).where(eq(moduleActions.moduleName, name)).orderBy(asc(moduleActions.position)),
    db
      .select({ at: installations.installedAt })
      .from(installations)
      .where(and(eq(installations.tenantId, tenantId), eq(installations.moduleName, name)))
      .limit(1),
  ]);
  return { module, actions, installed: installed !== undefined };
}

export async function installedCount(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(installations)
    .where(eq(installations.tenantId, tenantId));
  return row?.n ?? 0;
}
