import type { Role } from '../contract/roles';
import type { KeyPolicy } from '../keys/policy-rules';
import { effectiveTerms, type EffectiveTerms, type Plan } from '../tenants/plans';

/** Who is calling: the tenant, its plan and per-tenant terms, and what the credential may do. */
export interface Principal {
  tenantId: string;
  plan: Plan;
  /** Operator override of the plan's request limit, if any. */
  requestsPerMinute: number | null;
  /** Operator override of the plan's monthly execution quota, if any (custom contracts). */
  executionsPerMonth: number | null;
  /** Operator override of the overage price per execution in micro-dollars, if any. */
  overageUnitMicroUsd: number | null;
  /** Operator override of the monthly fee in micro-dollars, if any. */
  monthlyFeeMicroUsd: number | null;
  scopes: string[];
  via: 'api_key' | 'bearer';
  /** The API key used, when via = api_key. */
  keyId?: string;
  /** That key's policy, when it has one (src/keys/policy-rules.ts). */
  policy?: KeyPolicy;
  /** The member acting, when via = bearer: its scopes are its role's (src/contract/roles.ts). */
  member?: MemberActor;
}

/** A signed-in member of the tenant: the identity (issuer + subject = user id) and its role. */
export interface MemberActor {
  issuer: string;
  userId: string;
  email: string;
  role: Role;
}

/** The tenant columns a principal carries (a `TenantRow` fits). */
export interface TenantTermsColumns {
  id: string;
  plan: Plan;
  requestsPerMinute: number | null;
  executionsPerMonth: number | null;
  overageUnitMicroUsd: number | null;
  monthlyFeeMicroUsd: number | null;
}

/** The principal of a caller acting for a tenant (bearer tokens, dashboard sessions). */
export function tenantPrincipal(tenant: TenantTermsColumns, scopes: string[], via: Principal['via']): Principal {
  return {
    tenantId: tenant.id,
    plan: tenant.plan,
    requestsPerMinute: tenant.requestsPerMinute,
    executionsPerMonth: tenant.executionsPerMonth,
    overageUnitMicroUsd: tenant.overageUnitMicroUsd,
    monthlyFeeMicroUsd: tenant.monthlyFeeMicroUsd,
    scopes,
    via,
  };
}

/** The terms the calling tenant is held to: its plan with its overrides (src/tenants/plans.ts). */
export function principalTerms(
  principal: Pick<Principal, 'plan' | 'requestsPerMinute' | 'executionsPerMonth' | 'overageUnitMicroUsd' | 'monthlyFeeMicroUsd'>,
): EffectiveTerms {
  return effectiveTerms(principal.plan, principal);
}
