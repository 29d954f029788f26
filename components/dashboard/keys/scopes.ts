import { PLAN_FEATURES } from '@/src/contract/plans';
import type { Scope } from '@/src/contract/scopes';

/**
 * What each scope permits, for the scope picker. Typed by the API's own `Scope`, so a
 * scope added to or removed from src/contract/scopes.ts fails the type check until this list follows.
 */
export const SCOPE_MEANINGS: Record<Scope, string> = {
  'modules:read': 'Browse, search and read module details',
  'modules:execute': 'Run module actions',
  'modules:install': 'Install and uninstall modules',
  'modules:write': 'Publish and update your own modules',
  'billing:read': 'View usage and billing',
  'keys:manage': 'Create, rotate and revoke keys',
  'memory:read': 'Read memory entries',
  'memory:write': 'Store and update memory entries',
  'audit:read': 'Read the audit log',
  '*': 'Full access: every scope above, webhooks, members and plan changes',
};

export const SCOPES = Object.keys(SCOPE_MEANINGS) as Scope[];

/** The lowest plan with more than one key. */
export const MULTIPLE_KEYS_PLAN = PLAN_FEATURES.multiple_keys.minPlan;
