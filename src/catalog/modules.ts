import type { Principal } from '../auth/principal';
import { isChecked, markChecked } from '../lib/checked-output';
import { invalidRequest, notFound } from '../lib/errors';
import type { Services } from '../services';
import { presentModule } from './present';
import { findVisibleModule } from './queries';
import type { ListModulesInput } from './schema';
import { byCodeUnit } from './snapshot';

const nameCursor = {
  encode: (name: string) => Buffer.from(name).toString('base64url'),
  decode: (cursor: string | undefined) => {
    if (!cursor) return undefined;
    const name = Buffer.from(cursor, 'base64url').toString('utf8');
    if (!/^[a-z][a-z0-9-]{1,29}$/.test(name))
      throw invalidRequest('The cursor is not valid.', [{ path: 'cursor', message: 'Invalid cursor' }]);
    return name;
  },
};

/**
 * GET /api/v1/modules: modules visible to the tenant, by name; filters `category`, `installed`.
 * From the in-process catalog (src/catalog/snapshot.ts): no query while nothing changed.
 */
export async function listModules(svc: Services, principal: Principal, input: ListModulesInput) {
  const after = nameCursor.decode(input.cursor);
  const [snapshot, view] = await Promise.all([svc.moduleCache.snapshot(svc.db), svc.moduleCache.tenant(svc.db, principal.tenantId)]);
  const visible =
    view.own.length === 0 ? snapshot.modules : [...snapshot.modules, ...view.own].sort((a, b) => byCodeUnit(a.module.name, b.module.name));
  const matching = visible.filter(
    ({ module: m }) =>
      (!input.category || m.category === input.category) &&
      (input.installed === undefined || view.installed.has(m.name) === input.installed),
  );
  const start = after === undefined ? 0 : firstAfter(matching, after);
  const page = matching.slice(start, start + input.limit);
  const hasMore = matching.length > start + input.limit;
  const data = page.map((entry) => {
    const installed = view.installed.has(entry.module.name);
    return snapshot.byName.get(entry.module.name) === entry
      ? snapshot.presented(entry, installed)
      : presentModule(entry.module, entry.actions, installed);
  });
  const result = {
    data,
    has_more: hasMore,
    next_cursor: hasMore ? nameCursor.encode(page.at(-1)!.module.name) : null,
    total: matching.length,
  };
  // Public modules come checked from the snapshot; a page with a private one is checked per response.
  return data.every(isChecked) ? markChecked(result) : result;
}

/**
 * Every module visible to the tenant (public ones and its own), all pages of listModules: for
 * callers that need the whole catalog (arm's toolkit), never only its first 100 names.
 */
export async function listAllModules(svc: Services, principal: Principal): Promise<ReturnType<typeof presentModule>[]> {
  const out: ReturnType<typeof presentModule>[] = [];
  let cursor: string | undefined;
  do {
    const page = await listModules(svc, principal, { limit: 100, cursor });
    out.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

/** Index of the first entry whose name sorts after `name` (entries by name). */
function firstAfter(entries: { module: { name: string } }[], name: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.module.name <= name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** GET /api/v1/modules/{module} */
export async function getModule(svc: Services, principal: Principal, name: string) {
  const found = await findVisibleModule(svc.db, principal.tenantId, name, svc.moduleCache);
  if (!found) throw notFound('module');
  return presentModule(found.module, found.actions, found.installed);
}
