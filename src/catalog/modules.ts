import { and, asc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { installations, modules } from '../db/schema';
import { invalidRequest, notFound } from '../lib/errors';
import type { Services } from '../services';
import { presentModule } from './present';
import { findVisibleModule, visibleTo } from './queries';
import type { ListModulesInput } from './schema';

const nameCursor = {
  encode: (name: string) => Buffer.from(name).toString('base64url'),
  decode: (cursor: string | undefined) => {
    if (!cursor) return undefined;
    const name = Buffer.from(cursor, 'base64url').toString('utf8');
    if (!/^[a-z][a-z0-9-]{1,29}$/.test(name)) throw invalidRequest('The cursor is not valid.', [{ path: 'cursor', message: 'Invalid cursor' }]);
    return name;
  },
};

/** GET /api/v1/modules: modules visible to the tenant, by name; filters `category`, `installed`. */
export async function listModules(svc: Services, principal: Principal, input: ListModulesInput) {
  const after = nameCursor.decode(input.cursor);
  const filters = and(
    visibleTo(principal.tenantId),
    input.category ? eq(modules.category, input.category) : undefined,
    input.installed === true ? isNotNull(installations.installedAt) : input.installed === false ? isNull(installations.installedAt) : undefined,
  );
  const joined = and(eq(installations.moduleName, modules.name), eq(installations.tenantId, principal.tenantId));
  const [rows, [count]] = await Promise.all([
    svc.db
      .select({ module: modules, installedAt: installations.installedAt })
      .from(modules)
      .leftJoin(installations, joined)
      .where(and(filters, after ? gt(modules.name, after) : undefined))
      .orderBy(asc(modules.name))
      .limit(input.limit + 1),
    svc.db.select({ n: sql<number>`count(*)::int` }).from(modules).leftJoin(installations, joined).where(filters),
  ]);
  const page = rows.slice(0, input.limit);
  // Action definitions (the heavy JSON-schema rows) come from the module cache.
  const definitions = await Promise.all(page.map((r) => svc.moduleCache.get(svc.db, r.module.name)));
  return {
    data: page.map((r, i) => presentModule(r.module, definitions[i]?.actions ?? [], r.installedAt !== null)),
    has_more: rows.length > input.limit,
    next_cursor: rows.length > input.limit ? nameCursor.encode(page.at(-1)!.module.name) : null,
    total: count?.n ?? 0,
  };
}

/** GET /api/v1/modules/{module} */
export async function getModule(svc: Services, principal: Principal, name: string) {
  const found = await findVisibleModule(svc.db, principal.tenantId, name, svc.moduleCache);
  if (!found) throw notFound('module');
  return presentModule(found.module, found.actions, found.installed);
}
