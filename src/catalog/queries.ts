import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db';
import { installations, moduleActions, modules, type ModuleActionRow, type ModuleRow } from '../db/schema';

/** Public modules and the tenant's own: another tenant's private module does not exist here. */
export function visibleTo(tenantId: string): SQL {
  return or(eq(modules.visibility, 'public'), eq(modules.ownerTenantId, tenantId))!;
}

export interface ModuleWithActions {
  module: ModuleRow;
  actions: ModuleActionRow[];
  installed: boolean;
}

export async function findVisibleModule(db: Executor, tenantId: string, name: string): Promise<ModuleWithActions | undefined> {
  const [row] = await db
    .select({ module: modules, installedAt: installations.installedAt })
    .from(modules)
    .leftJoin(installations, and(eq(installations.moduleName, modules.name), eq(installations.tenantId, tenantId)))
    .where(and(eq(modules.name, name), visibleTo(tenantId)))
    .limit(1);
  if (!row) return undefined;
  const actions = await db.select().from(moduleActions).where(eq(moduleActions.moduleName, name)).orderBy(asc(moduleActions.position));
  return { module: row.module, actions, installed: row.installedAt !== null };
}

/** Actions of several modules at once, grouped by module name. */
export async function actionsOf(db: Executor, names: string[]): Promise<Map<string, ModuleActionRow[]>> {
  const grouped = new Map<string, ModuleActionRow[]>();
  if (names.length === 0) return grouped;
  const rows = await db
    .select()
    .from(moduleActions)
    .where(inArray(moduleActions.moduleName, names))
    .orderBy(asc(moduleActions.moduleName), asc(moduleActions.position));
  for (const r of rows) grouped.set(r.moduleName, [...(grouped.get(r.moduleName) ?? []), r]);
  return grouped;
}

export async function installedCount(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(installations).where(eq(installations.tenantId, tenantId));
  return row?.n ?? 0;
}

