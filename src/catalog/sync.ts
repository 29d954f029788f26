import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
import type { Db, Tx } from '../db';
import { moduleActions, modules } from '../db/schema';
import { builtinDefinitions, type BuiltinDefinition } from '../modules/definitions';

type ModuleValues = typeof modules.$inferInsert;
type ActionValues = typeof moduleActions.$inferInsert;

/** A built-in's catalog row, as the catalog tables hold it. */
function moduleValues(def: BuiltinDefinition) {
  return {
    name: def.name,
    version: def.version,
    title: def.title,
    description: def.description,
    category: def.category,
    tags: def.tags,
    publisher: 'platform',
    ownerTenantId: null,
    visibility: 'public' as const,
    runtime: { type: 'builtin' as const },
  } satisfies ModuleValues;
}

function actionValues(def: BuiltinDefinition): ActionValues[] {
  return def.actions.map((action, position) => ({
    moduleName: def.name,
    name: action.name,
    description: action.description,
    inputSchema: action.inputSchema,
    outputSchema: action.outputSchema,
    examples: action.examples,
    timeoutMs: action.timeoutMs ?? 10_000,
    position,
  }));
}

/** Whether the row holds every value given (JSON compared by content: jsonb keeps its own key order). */
const holds = (row: Record<string, unknown> | undefined, values: Record<string, unknown>): boolean =>
  row !== undefined && Object.entries(values).every(([key, value]) => isDeepStrictEqual(row[key], value));

/**
 * Upserts the built-in module packs into the catalog tables at start-up, so listing, search and
 * the directory are SQL over one set of rows (built-in and published alike). Only a pack whose
 * row or actions differ from its definition is written, and its `updated_at` moves then, and only
 * then: caches and certification key on it, and a restart changes no definition. Idempotent:
 * several instances may run it together.
 */
export async function syncBuiltinModules(db: Db): Promise<void> {
  const definitions = await builtinDefinitions();
  const names = definitions.map((def) => def.name);
  const [rows, actionRows] = await Promise.all([
    db.select().from(modules).where(inArray(modules.name, names)),
    db.select().from(moduleActions).where(inArray(moduleActions.moduleName, names)),
  ]);
  const changed = definitions.filter((def) => {
    const stored = actionRows.filter((row) => row.moduleName === def.name);
    const wanted = actionValues(def);
    return (
      !holds(
        rows.find((row) => row.name === def.name),
        moduleValues(def),
      ) ||
      stored.length !== wanted.length ||
      wanted.some(
        (action) =>
          !holds(
            stored.find((row) => row.name === action.name),
            action,
          ),
      )
    );
  });
  if (changed.length === 0) return;
  await db.transaction(async (tx) => {
    for (const def of changed) await writeDefinition(tx, def);
  });
}

async function writeDefinition(tx: Tx, def: BuiltinDefinition): Promise<void> {
  const values = moduleValues(def);
  await tx
    .insert(modules)
    .values(values)
    .onConflictDoUpdate({
      target: modules.name,
      set: { ...values, updatedAt: sql`now()` },
      where: sql`${modules.ownerTenantId} is null`,
    });
  const actions = actionValues(def);
  for (const row of actions)
    await tx
      .insert(moduleActions)
      .values(row)
      .onConflictDoUpdate({ target: [moduleActions.moduleName, moduleActions.name], set: row });
  await tx.delete(moduleActions).where(
    and(
      eq(moduleActions.moduleName, def.name),
      notInArray(
        moduleActions.name,
        actions.map((a) => a.name),
      ),
    ),
  );
}
