import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db';
import { moduleActions, modules, type ModuleActionRow, type ModuleRow } from '../db/schema';

export interface PublicModule {
  module: ModuleRow;
  actions: ModuleActionRow[];
}

/** Every public module with its actions, by category then name: what the discovery documents describe. */
export async function publicCatalog(db: Db): Promise<PublicModule[]> {
  const rows = await db.select().from(modules).where(eq(modules.visibility, 'public')).orderBy(asc(modules.category), asc(modules.name));
  const actions = await db.select().from(moduleActions).orderBy(asc(moduleActions.moduleName), asc(moduleActions.position));
  return rows.map((m) => ({ module: m, actions: actions.filter((a) => a.moduleName === m.name) }));
}
