import { principalTerms, type Principal } from '../auth/principal';
import { requestLimitOf } from '../metering/requests';
import { publicLimits } from './plans';

/**
 * GET /api/v1/me: who the credential belongs to and what it may do, answered from the
 * authenticated principal alone (no database read), so agents can check their setup cheaply.
 */
export function whoAmI(principal: Principal) {
  return {
    tenant_id: principal.tenantId,
    plan: principal.plan,
    limits: { ...publicLimits(principal.plan), executions_per_month: principalTerms(principal).executionsPerMonth },
    requests_per_minute: requestLimitOf(principal),
    credential: { type: principal.via, key_id: principal.keyId ?? null, scopes: principal.scopes },
  };
}
