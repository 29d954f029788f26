import type { Scope } from '../../../src/contract/scopes';
import type { PLAN_FEATURES } from '../../../src/tenants/plans';

/**
 * What each scope permits (spec §5), for the scope picker. Typed by the API's own `Scope`, so a
 * scope added to or removed from src/auth/scopes.ts fails the type check until this list follows.
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
  '*': 'Full access: every scope above, and webhooks',
};

export const SCOPES = Object.keys(SCOPE_MEANINGS) as Scope[];

/** The scopes a key created without a choice gets (DESIGN.md "Keys"), preselected in the picker. */
export const DEFAULT_SCOPES: Scope[] = ['modules:read', 'modules:execute'];

/** The lowest plan with more than one key; typed by the API's PLAN_FEATURES, so the text cannot drift. */
export const MULTIPLE_KEYS_PLAN: (typeof PLAN_FEATURES)['multiple_keys']['minPlan'] = 'pro';
