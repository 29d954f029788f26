import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Executor } from '../db';
import { installations, tenants } from '../db/schema';
import { notFound, planRequired } from '../lib/errors';
import { unitOfWork, type Outbox } from '../outbox';
import type { Services } from '../services';
import { PLAN_NAMES, PLANS, type Plan } from '../tenants/plans';
import { findVisibleModule, installedCount } from './queries';

/**
 * Installs a module for the tenant inside `tx` (idempotent): checks the plan's module limit under
 * a lock on the tenant row, so concurrent installs cannot pass it, and writes `module.installed`.
 * Returns whether a new installation was made.
 */
export async function installInTx(
  tx: Executor,
  out: Outbox,
  principal: Pick<Principal, 'tenantId' | 'plan'>,
  moduleName: string,
  source: 'explicit' | 'first_use',
) {
  await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, principal.tenantId)).for('update');
  const [existing] = await tx
    .select()
    .from(installations)
    .where(and(eq(installations.tenantId, principal.tenantId), eq(installations.moduleName, moduleName)));
  if (existing) return { created: false, installedAt: existing.installedAt };
  const limit = PLANS[principal.plan].modules;
  if (limit !== null && (await installedCount(tx, principal.tenantId)) >= limit) {
    throw planRequired(nextPlanWithMoreModules(principal.plan), `Installing more than ${limit} modules`);
  }
  const [row] = await tx.insert(installations).values({ tenantId: principal.tenantId, moduleName }).returning();
  await out.emit(principal.tenantId, 'module.installed', { module: moduleName, source, installed_at: row!.installedAt.toISOString() });
  return { created: true, installedAt: row!.installedAt };
}

function nextPlanWithMoreModules(plan: Plan): Plan {
  const current = PLANS[plan].modules ?? Infinity;
  return PLAN_NAMES.find((p) => (PLANS[p].modules ?? Infinity) > current) ?? 'enterprise';
}

/** POST /api/v1/modules/{module}/install: 201 when installed now, 200 when it already was. */
export async function installModule(svc: Services, principal: Principal, moduleName: string) {
  const found = await findVisibleModule(svc.db, principal.tenantId, moduleName, svc.moduleCache);
  if (!found) throw notFound('module');
  const result = await unitOfWork(svc, async (tx, out) => {
    const done = await installInTx(tx, out, principal, moduleName, 'explicit');
    if (done.created) await recordAudit(tx, principal.tenantId, { action: 'module.installed', target: { type: 'module', id: moduleName } });
    return done;
  });
  return {
    status: result.created ? 201 : 200,
    body: { module: moduleName, installed: true, installed_at: result.installedAt.toISOString() },
  };
}

/** DELETE /api/v1/modules/{module}/install; writes `module.uninstalled`. */
export async function uninstallModule(svc: Services, principal: Principal, moduleName: string) {
  return unitOfWork(svc, async (tx, out) => {
    const [removed] = await tx
      .delete(installations)
      .where(and(eq(installations.tenantId, principal.tenantId), eq(installations.moduleName, moduleName)))
      .returning();
    if (!removed) throw notFound('installed module');
    const at = new Date();
    await out.emit(principal.tenantId, 'module.uninstalled', { module: moduleName, uninstalled_at: at.toISOString() });
    await recordAudit(tx, principal.tenantId, { action: 'module.uninstalled', target: { type: 'module', id: moduleName } });
    return { module: moduleName, installed: false, installed_at: null, uninstalled_at: at.toISOString() };
  });
}
