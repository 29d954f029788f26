import { and, asc, eq, gt, or, sql } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { moduleActions, modules } from '../db/schema';
import { invalidRequest } from '../lib/errors';
import type { Services } from '../services';
import { visibleTo } from './queries';
import { ACTION_NAME, MODULE_NAME, type DirectoryInput, type SearchInput } from './schema';

/**
 * The searchable text of an action, weighted: names (A), module title and tags (B),
 * descriptions (C). Built per query: the catalog is small enough that this beats an index to
 * maintain, and it works the same on PGlite and PostgreSQL.
 */
const document = sql`(
  setweight(to_tsvector('english', ${modules.name} || ' ' || replace(${moduleActions.name}, '_', ' ')), 'A') ||
  setweight(to_tsvector('english', ${modules.title} || ' ' || array_to_string(${modules.tags}, ' ')), 'B') ||
  setweight(to_tsvector('english', ${moduleActions.description} || ' ' || ${modules.description}), 'C')
)`;

/**
 * GET /api/v1/catalog/search: ranked full-text search over module names, titles, descriptions,
 * tags and action descriptions. `websearch_to_tsquery` accepts any user syntax ("quoted phrases",
 * or, -not); a word that is a prefix of a name (e.g. "slug") also matches.
 */
export async function searchCatalog(svc: Services, principal: Principal, input: SearchInput) {
  const query = sql`websearch_to_tsquery('english', ${input.q})`;
  const prefix = `%${input.q.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
  const nameMatch = or(sql`${modules.name} like ${prefix}`, sql`${moduleActions.name} like ${prefix}`);
  const score = sql<number>`(ts_rank_cd(${document}, ${query}) + case when ${nameMatch} then 0.5 else 0 end)::float8`;
  const where = and(
    visibleTo(principal.tenantId),
    input.category ? eq(modules.category, input.category) : undefined,
    or(sql`${document} @@ ${query}`, nameMatch),
  );
  const rows = await svc.db
    .select({
      module: modules.name,
      action: moduleActions.name,
      title: modules.title,
      description: moduleActions.description,
      score,
      total: sql<number>`(count(*) over ())::int`,
    })
    .from(moduleActions)
    .innerJoin(modules, eq(modules.name, moduleActions.moduleName))
    .where(where)
    .orderBy(sql`${score} desc`, asc(modules.name), asc(moduleActions.name))
    .limit(input.limit);
  return {
    query: input.q,
    total: rows[0]?.total ?? 0,
    data: rows.map(({ total: _total, score: s, ...r }) => ({ ...r, score: Math.round(s * 10_000) / 10_000 })),
  };
}

/**
 * GET /api/v1/directory: every action visible to the tenant as `module.action`, by id,
 * paginated with `total`. Only real actions: the list is never padded.
 */
export async function listDirectory(svc: Services, principal: Principal, input: DirectoryInput) {
  const after = input.cursor ? decodeDirectoryCursor(input.cursor) : undefined;
  const filters = and(visibleTo(principal.tenantId), input.category ? eq(modules.category, input.category) : undefined);
  const afterCursor = after
    ? or(gt(moduleActions.moduleName, after.module), and(eq(moduleActions.moduleName, after.module), gt(moduleActions.name, after.action)))
    : undefined;
  const base = svc.db.select({
    module: moduleActions.moduleName,
    action: moduleActions.name,
    description: moduleActions.description,
    inputSchema: moduleActions.inputSchema,
    trustScore: modules.trustScore,
    certificationTier: modules.certificationTier,
  });
  const [rows, [count]] = await Promise.all([
    base
      .from(moduleActions)
      .innerJoin(modules, eq(modules.name, moduleActions.moduleName))
      .where(and(filters, afterCursor))
      .orderBy(asc(moduleActions.moduleName), asc(moduleActions.name))
      .limit(input.limit + 1),
    svc.db
      .select({ n: sql<number>`count(*)::int` })
      .from(moduleActions)
      .innerJoin(modules, eq(modules.name, moduleActions.moduleName))
      .where(filters),
  ]);
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    data: page.map((r) => ({
      id: `${r.module}.${r.action}`,
      module: r.module,
      action: r.action,
      description: r.description,
      input_schema: r.inputSchema,
      trust_score: r.trustScore,
      certification_tier: r.certificationTier,
    })),
    has_more: rows.length > input.limit,
    next_cursor: rows.length > input.limit && last ? Buffer.from(`${last.module}.${last.action}`).toString('base64url') : null,
    total: count?.n ?? 0,
  };
}

/** The cursor listDirectory issued (base64url of `module.action`), or 400. */
function decodeDirectoryCursor(cursor: string) {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [module, action, ...rest] = text.split('.');
  if (!module || !action || rest.length > 0 || !MODULE_NAME.test(module) || !ACTION_NAME.test(action) || action.length > 30 || Buffer.from(text).toString('base64url') !== cursor) {
    throw invalidRequest('The cursor is not valid.', [{ path: 'cursor', message: 'Invalid cursor' }]);
  }
  return { module, action };
}
