import type { Plan } from '../tenants/plans';

/** Who is calling: the tenant, its plan and what the credential may do. */
export interface Principal {
  tenantId: string;
  plan: Plan;
  /** Operator override of the plan's request limit, if any. */
  requestsPerMinute: number | null;
  scopes: string[];
  via: 'api_key' | 'bearer';
  /** The API key used, when via = api_key. */
  keyId?: string;
}

/** The principal of a caller acting for a tenant (bearer tokens, dashboard sessions). */
export function tenantPrincipal(
  tenant: { id: string; plan: Plan; requestsPerMinute: number | null },
  scopes: string[],
  via: Principal['via'],
): Principal {
  return { tenantId: tenant.id, plan: tenant.plan, requestsPerMinute: tenant.requestsPerMinute, scopes, via };
}
