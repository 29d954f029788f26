import { and, eq, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../db';
import { moduleActions, modules } from '../db/schema';
import { builtinDefinitions } from '../modules/definitions';

/**
 * Upserts the built-in module packs into the catalog tables at start-up, so listing, search and
 * the directory are SQL over one set of rows (built-in and published alike). Idempotent: several
 * instances may run it together.
 */
export async function syncBuiltinModules(db: Db): Promise<void> {
  const definitions = await builtinDefinitions();
  await db.transaction(async (tx) => {
    for (const def of definitions) {
      const values = {
        name: def.name,
        version: def.version,
        title: def.title,
        description: def.description,
        category: def.category,
        tags: def.tags,
        publisher: 'platform',
        visibility: 'public' as const,
        runtime: { type: 'builtin' as const },
      };
      await tx
        .insert(modules)
        .values(values)
        .onConflictDoUpdate({
          target: modules.name,
          set: { ...values, updatedAt: sql`now()` },
          where: sql`${modules.ownerTenantId} is null`,
        });
      for (const [position, action] of def.actions.entries()) {
        const row = {
          moduleName: def.name,
          name: action.name,
          description: action.description,
          inputSchema: action.inputSchema,
          outputSchema: action.outputSchema,
          examples: action.examples,
          timeoutMs: action.timeoutMs ?? 10_000,
          position,
        };
        await tx
          .insert(moduleActions)
          .values(row)
          .onConflictDoUpdate({ target: [moduleActions.moduleName, moduleActions.name], set: row });
      }
      await tx.delete(moduleActions).where(
        and(
          eq(moduleActions.moduleName, def.name),
          notInArray(
            moduleActions.name,
            def.actions.map((a) => a.name),
          ),
        ),
      );
    }
  });
}
