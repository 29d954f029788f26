import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import type { Executor } from '../db';
import { installations, modules, tenants } from '../db/schema';
import { WEBHOOK_PLANS } from '../webhooks/fanout';

/**
 * Who hears about a module's certification and trust (tenant ids, sorted): its publisher (none
 * for the built-in `platform` modules) and every tenant that installed it, on plans with webhooks.
 */
export async function moduleAudience(tx: Executor, moduleName: string): Promise<string[]> {
  const installers = tx.select({ id: installations.tenantId }).from(installations).where(eq(installations.moduleName, moduleName));
  const owner = tx
    .select({ id: modules.ownerTenantId })
    .from(modules)
    .where(and(eq(modules.name, moduleName), isNotNull(modules.ownerTenantId)));
  const rows = await tx
    .select({ id: tenants.id })
    .from(tenants)
    .where(and(inArray(tenants.plan, WEBHOOK_PLANS), or(inArray(tenants.id, installers), inArray(tenants.id, owner))))
    .orderBy(tenants.id);
  return rows.map((r) => r.id);
}
