import type { TenantRow } from '../db/schema';
import { PLANS, publicLimits } from './plans';

export function presentTenant(row: TenantRow) {
  return {
    tenant_id: row.id,
    agent_name: row.agentName,
    owner_email: row.ownerEmail,
    plan: row.plan,
    limits: publicLimits(row.plan),
    requests_per_minute: row.requestsPerMinute ?? PLANS[row.plan].requestsPerMinute,
    requests_per_minute_override: row.requestsPerMinute,
    created_at: row.createdAt.toISOString(),
  };
}
