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
