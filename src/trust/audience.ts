import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import type { Executor } from '../db';
import { installations, modules, tenants } from '../db/schema';
import { WEBHOOK_PLANS } from '../outbox';

/**
 * Who hears about a module's certification and trust (tenant ids, sorted): its publisher (none
 * for the built-in `platform` modules) and every tenant that installed it, on plans with webhooks.
 * Installers hear only while the module is public: a module switched back to private keeps other
 * tenants' installations (docs/publishing.md), but for them it no longer exists, so no event
 * may name it, its tier or its score.
 */
export async function moduleAudience(tx: Executor, moduleName: string): Promise<string[]> {
  const installers = tx
    .select({ id: installations.tenantId })
    .from(installations)
    .innerJoin(modules, eq(modules.name, installations.moduleName))
    .where(and(eq(installations.moduleName, moduleName), eq(modules.visibility, 'public')));
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
