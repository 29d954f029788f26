import type { Principal } from '../auth/principal';
import { definitionHash } from '../catalog/definition-hash';
import { findVisibleModule, type ModuleWithActions } from '../catalog/queries';
import { policyDenied } from '../keys/policy';
import { callRefusal } from '../keys/policy-rules';
import { recordKeyRefusal } from '../keys/usage';
import type { Services } from '../services';

/**
 * 403 `policy_denied` when the caller's key may not call `action` of the found module
 * (docs/policies.md); the refusal is counted for the key's usage (off the request path).
 */
export function assertPolicyAllowsCall(
  svc: Services,
  principal: Principal,
  found: ModuleWithActions,
  action: string,
  details: Record<string, unknown> = {},
): void {
  if (!principal.policy) return;
  const refusal = callRefusal(principal.policy, found.module, action, () => definitionHash(found.module, found.actions));
  if (!refusal) return;
  recordKeyRefusal(svc, principal, refusal.reason);
  const denied = policyDenied(refusal);
  Object.assign(denied.details, details);
  throw denied;
}

/**
 * Every call of a multi-step request checked before any of them runs (a chain): the first one
 * the key's policy refuses throws, with `step` its index. A module the caller cannot see is left
 * to its step, which fails with 404 as it would without a policy.
 */
export async function assertPolicyAllowsCalls(
  svc: Services,
  principal: Principal,
  calls: readonly { module: string; action: string }[],
): Promise<void> {
  if (!principal.policy) return;
  for (const [step, call] of calls.entries()) {
    const found = await findVisibleModule(svc.db, principal.tenantId, call.module, svc.moduleCache);
    if (found) assertPolicyAllowsCall(svc, principal, found, call.action, { step });
  }
}
