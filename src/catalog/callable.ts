import type { Principal } from '../auth/principal';
import { callRefusal } from '../keys/policy-rules';

/** The parts of a listed module (as presentModule answers it) the policy's call rules read. */
export interface ListedModule {
  name: string;
  trust_score: number;
  certification_tier: string;
  definition_hash: string;
}

/**
 * Whether the caller's key may call `action` of `module`: what the lists an agent sees (MCP
 * tools and tool search, arm) may show. The same rules the execution start applies (allow lists,
 * trust minimums, pinned definitions); without a policy, everything.
 */
export function mayCall(principal: Principal, module: ListedModule, action: string): boolean {
  if (!principal.policy) return true;
  const called = { name: module.name, trustScore: module.trust_score, certificationTier: module.certification_tier };
  return !callRefusal(principal.policy, called, action, () => module.definition_hash);
}

/** The module with only the actions the key may call, or undefined when it may call none. */
export function withCallableActions<M extends ListedModule & { actions: { name: string }[] }>(
  principal: Principal,
  module: M,
): M | undefined {
  if (!principal.policy) return module;
  const actions = module.actions.filter((a) => mayCall(principal, module, a.name));
  if (actions.length === module.actions.length) return module;
  return actions.length > 0 ? { ...module, actions } : undefined;
}
