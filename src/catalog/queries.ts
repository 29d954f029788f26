import { and, asc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db';
import { installations, moduleActions, modules, type ModuleActionRow, type ModuleRow } from '../db/schema';
import { MODULE_NAME } from './schema';

/** Public modules and the tenant's own: another tenant's private module does not exist here. */
export function visibleTo(tenantId: string): SQL {
  return or(eq(modules.visibility, 'public'), eq(modules.ownerTenantId, tenantId))!;
}

export interface ModuleWithActions {
  module: ModuleRow;
  actions: ModuleActionRow[];
  installed: boolean;
}

/**
 * Module definitions (row + actions) by name, cached in process: the execute path reads them on
 * every call, and their JSON schemas are the heaviest rows in the database. Entries live a few
 * seconds (another instance's publish shows up by then) and this process's publishes drop them
 * at once.
 */
export class ModuleCache {
  private entries = new Map<string, { module: ModuleRow; actions: ModuleActionRow[]; at: number }>();

  constructor(private readonly ttlMs = 5000) {}

  async get(db: Executor, name: string): Promise<{ module: ModuleRow; actions: ModuleActionRow[] } | undefined> {
    const hit = this.entries.get(name);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit;
    const [module] = await db.select().from(modules).where(eq(modules.name, name)).limit(1);
    if (!module) return undefined;
    const actions = await db.select().from(moduleActions).where(eq(moduleActions.moduleName, name)).orderBy(asc(moduleActions.position));
    const entry = { module, actions, at: Date.now() };
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(name, entry);
    return entry;
  }

  invalidate(name: string): void {
    this.entries.delete(name);
  }
}

/**
 * The module as the tenant may see it (public, or its own), with its actions and whether the
 * tenant installed it; undefined otherwise. Pass `cache` on read paths; inside a transaction that
 * changes the module, read it fresh.
 */
export async function findVisibleModule(db: Executor, tenantId: string, name: string, cache?: ModuleCache): Promise<ModuleWithActions | undefined> {
  // A name that cannot exist does not exist (paths take any string): no query for it.
  if (!MODULE_NAME.test(name)) return undefined;
  const found = cache ? await cache.get(db, name) : await new ModuleCache(0).get(db, name);
  if (!found) return undefined;
  if (found.module.visibility !== 'public' && found.module.ownerTenantId !== tenantId) return undefined;
  const [installed] = await db
    .select({ at: installations.installedAt })
    .from(installations)
    .where(and(eq(installations.tenantId, tenantId), eq(installations.moduleName, name)))
    .limit(1);
  return { module: found.module, actions: found.actions, installed: installed !== undefined };
}

export async function installedCount(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(installations).where(eq(installations.tenantId, tenantId));
  return row?.n ?? 0;
}

