import { z } from 'zod';
import { SCOPES, type Scope } from './scopes';

/**
 * Members' roles and what each may do (docs/organizations.md). A role is a set of scopes: the
 * API key scopes (src/contract/scopes.ts) and the finer member scopes below, which name what an
 * API key reaches only through `*` (webhooks, plan changes, members). An operation declares the
 * key scope it needs and, where that is `*`, the member scope a role must hold instead.
 */
export const MEMBER_SCOPES = ['keys:read', 'webhooks:read', 'webhooks:write', 'billing:write', 'members:read', 'members:manage'] as const;

export type MemberScope = (typeof MEMBER_SCOPES)[number];
export type RoleScope = Scope | MemberScope;

export const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);
/** The roles an invitation or a role change may give: ownership only moves by transfer. */
export const ASSIGNABLE_ROLES = ['admin', 'developer', 'billing', 'viewer'] as const;
export const assignableRoleSchema = z.enum(ASSIGNABLE_ROLES);

export interface RoleDefinition {
  description: string;
  scopes: readonly RoleScope[];
}

const keyScopesBut = (...left: Scope[]) => SCOPES.filter((s) => s !== '*' && !left.includes(s));

export const ROLE_DEFINITIONS: Record<Role, RoleDefinition> = {
  owner: {
    description: 'Everything, including plan changes, transferring ownership and deleting the tenant. Exactly one per tenant.',
    scopes: ['*'],
  },
  admin: {
    description: 'Everything but ownership, deleting the tenant and plan changes: keys, webhooks, modules, members, the audit log.',
    scopes: [...keyScopesBut(), 'keys:read', 'webhooks:read', 'webhooks:write', 'members:read', 'members:manage'],
  },
  developer: {
    description: 'Keys within its own scopes, webhooks, modules, executions, memory and workflows. No members, no billing.',
    scopes: [...keyScopesBut('billing:read', 'audit:read'), 'keys:read', 'webhooks:read', 'webhooks:write'],
  },
  billing: {
    description: 'Usage, invoices and plan changes. Nothing else.',
    scopes: ['billing:read', 'billing:write'],
  },
  viewer: {
    description: 'Reads modules, executions, memory, keys (never a secret), webhooks, usage and members. Changes nothing.',
    scopes: ['modules:read', 'memory:read', 'billing:read', 'keys:read', 'webhooks:read', 'members:read'],
  },
};

export function roleScopes(role: Role): string[] {
  return [...ROLE_DEFINITIONS[role].scopes];
}
