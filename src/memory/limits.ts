import { PLAN_NAMES, PLANS, type Plan } from '../tenants/plans';

/** Memory entries a tenant may keep (all agents together) per plan; null = unlimited. */
export const MEMORY_ENTRY_LIMITS = Object.fromEntries(PLAN_NAMES.map((plan) => [plan, PLANS[plan].memoryEntries])) as Record<
  Plan,
  number | null
>;

export function memoryEntryLimit(plan: Plan): number | null {
  return MEMORY_ENTRY_LIMITS[plan];
}

/** The lowest plan that allows more entries than `plan` (the `required_plan` of a 403). */
export function planWithMoreEntries(plan: Plan): Plan {
  const current = MEMORY_ENTRY_LIMITS[plan] ?? Infinity;
  return PLAN_NAMES.find((p) => (MEMORY_ENTRY_LIMITS[p] ?? Infinity) > current) ?? 'enterprise';
}
