import { and, asc, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db';
import type { Principal } from '../auth/principal';
import { moduleActions, modules } from '../db/schema';
import { checkOnce } from '../lib/checked-output';
import { invalidRequest } from '../lib/errors';
import type { Services } from '../services';
import { visibleTo } from './queries';
import { ACTION_NAME, MODULE_NAME, searchOutput, type DirectoryInput, type SearchInput } from './schema';
import { byCodeUnit, directoryOf, type CatalogSnapshot, type TenantView } from './snapshot';

/**
 * The searchable text of an action, weighted: names (A), module title and tags (B),
 * descriptions (C). Stored in `module_actions.search_document` (GIN-indexed) and kept by
 * triggers from the action and its module (drizzle/0010_search_document.sql), so a query ranks
 * precomputed documents instead of building three tsvectors per action.
 */
const document = sql.raw('"module_actions"."search_document"');

/**
 * GET /api/v1/catalog/search: ranked full-text search over module names, titles, descriptions,
 * tags and action descriptions. `websearch_to_tsquery` accepts any user syntax ("quoted phrases",
 * or, -not); a word that is a prefix of a name (e.g. "slug") also matches.
 */
export async function searchCatalog(svc: Services, principal: Principal, input: SearchInput) {
  const [snapshot, view] = await Promise.all([svc.moduleCache.snapshot(svc.db), svc.moduleCache.tenant(svc.db, principal.tenantId)]);
  if (view.own.length > 0) return rankedSearch(svc.db, visibleTo(principal.tenantId), input);
  // Every tenant without private modules sees the same public results: ranked once per catalog
  // snapshot (a change makes a new one), then answered from memory, checked once.
  const key = `search:${input.limit}:${input.category ?? ''}:${input.q}`;
  const pending = snapshot.memo(key, () =>
    rankedSearch(svc.db, eq(modules.visibility, 'public'), input).then((result) => checkOnce(searchOutput, result)),
  );
  return pending.catch((err: unknown) => {
    snapshot.forget(key);
    throw err;
  });
}

async function rankedSearch(db: Executor, visible: SQL, input: SearchInput) {
  const query = sql`websearch_to_tsquery('english', ${input.q})`;
  const prefix = `%${input.q.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
  const nameMatch = or(sql`${modules.name} like ${prefix}`, sql`${moduleActions.name} like ${prefix}`);
  const score = sql<number>`(ts_rank_cd(${document}, ${query}) + case when ${nameMatch} then 0.5 else 0 end)::float8`;
  const where = and(
    visible,
    input.category ? eq(modules.category, input.category) : undefined,
    or(sql`${document} @@ ${query}`, nameMatch),
  );
  const rows = await db
    .select({
      module: modules.name,
      action: moduleActions.name,
      title: modules.title,
      description: moduleActions.description,
      trust_score: modules.trustScore,
      certification_tier: modules.certificationTier,
      score,
      total: sql<number>`(count(*) over ())::int`,
    })
    .from(moduleActions)
    .innerJoin(modules, eq(modules.name, moduleActions.moduleName))
    .where(where)
    // Equally relevant: the more trusted module first (docs/trust.md).
    .orderBy(sql`${score} desc`, desc(modules.trustScore), asc(modules.name), asc(moduleActions.name))
    .limit(input.limit);
  return {
    query: input.q,
    total: rows[0]?.total ?? 0,
    data: rows.map(({ total: _total, score: s, ...r }) => ({ ...r, score: Math.round(s * 10_000) / 10_000 })),
  };
}

/**
 * GET /api/v1/directory: every action visible to the tenant as `module.action`, by id,
 * paginated with `total`. Only real actions: the list is never padded. From the in-process
 * catalog (src/catalog/snapshot.ts).
 */
export async function listDirectory(svc: Services, principal: Principal, input: DirectoryInput) {
  const after = input.cursor ? decodeDirectoryCursor(input.cursor) : undefined;
  const [snapshot, view] = await Promise.all([svc.moduleCache.snapshot(svc.db), svc.moduleCache.tenant(svc.db, principal.tenantId)]);
  const visible =
    view.own.length === 0
      ? snapshot.directory
      : [...snapshot.directory, ...directoryOf(view.own)].sort((x, y) => byCodeUnit(x.module, y.module) || byCodeUnit(x.action, y.action));
  const matching = input.category ? visible.filter((d) => categoryOf(snapshot, view, d.module) === input.category) : visible;
  const start = after
    ? matching.findIndex(
        (d) => byCodeUnit(d.module, after.module) > 0 || (d.module === after.module && byCodeUnit(d.action, after.action) > 0),
      )
    : 0;
  const from = start === -1 ? matching.length : start;
  const page = matching.slice(from, from + input.limit);
  const hasMore = matching.length > from + input.limit;
  const last = page.at(-1);
  return {
    data: page,
    has_more: hasMore,
    next_cursor: hasMore && last ? Buffer.from(`${last.module}.${last.action}`).toString('base64url') : null,
    total: matching.length,
  };
}

function categoryOf(snapshot: CatalogSnapshot, view: TenantView, module: string): string | undefined {
  return (snapshot.byName.get(module) ?? view.ownByName.get(module))?.module.category;
}

/** The cursor listDirectory issued (base64url of `module.action`), or 400. */
function decodeDirectoryCursor(cursor: string) {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [module, action, ...rest] = text.split('.');
  if (
    !module ||
    !action ||
    rest.length > 0 ||
    !MODULE_NAME.test(module) ||
    !ACTION_NAME.test(action) ||
    action.length > 30 ||
    Buffer.from(text).toString('base64url') !== cursor
  ) {
    throw invalidRequest('The cursor is not valid.', [{ path: 'cursor', message: 'Invalid cursor' }]);
  }
  return { module, action };
}
