import { holdsScope } from '@/src/contract/scopes';
import type { Role } from '@/src/contract/roles';

/**
 * What the caller may do, from `GET /api/v1/members/me` (`members.me`): a member's role and its
 * scopes (src/contract/roles.ts), or an API-key session's key scopes. The dashboard hides the
 * sections a role cannot read and disables, with the reason in words, the controls it cannot
 * use; the API refuses the same calls (403 `insufficient_scope`), so this only spares the click.
 *
 * Each action names the scope an API key needs and, where that is `*`, the member scope a role
 * needs instead: the pair each procedure declares (`apiProcedure(scope, feature, roleScope)`).
 */
export const ACTIONS = {
  readKeys: { key: 'keys:manage', member: 'keys:read', words: 'see API keys' },
  manageKeys: { key: 'keys:manage', words: 'create, rotate or revoke keys' },
  readWebhooks: { key: '*', member: 'webhooks:read', words: 'see webhooks' },
  manageWebhooks: { key: '*', member: 'webhooks:write', words: 'create, edit or delete webhooks' },
  redeliverWebhooks: { key: '*', member: 'webhooks:write', words: 'resend, recover or replay deliveries' },
  readModules: { key: 'modules:read', words: 'see modules, executions or workflows' },
  installModules: { key: 'modules:install', words: 'install or uninstall modules' },
  runModules: { key: 'modules:execute', words: 'run actions' },
  decideApprovals: { key: 'modules:execute', words: "approve or reject a run's steps" },
  operateRuns: { key: 'modules:execute', words: 'cancel or replay runs' },
  writeWorkflows: { key: 'modules:write', words: 'change workflows' },
  readMemory: { key: 'memory:read', words: 'see agent memory' },
  writeMemory: { key: 'memory:write', words: 'delete memory entries' },
  readBilling: { key: 'billing:read', words: 'see usage and invoices' },
  changePlan: { key: '*', member: 'billing:write', words: 'change the plan' },
  readMembers: { key: '*', member: 'members:read', words: 'see members' },
  manageMembers: { key: '*', member: 'members:manage', words: 'invite or manage members' },
  readAudit: { key: 'audit:read', words: 'see the audit log' },
} as const satisfies Record<string, { key: string; member?: string; words: string }>;
export type Action = keyof typeof ACTIONS;

export interface Caller {
  kind: 'member' | 'api_key';
  role: Role | null;
  scopes: string[];
}

/** Whether `caller` may do `action`, as the API decides it (src/server/admission.ts, assertAllowed). */
export function allows(caller: Caller, action: Action): boolean {
  const a: { key: string; member?: string } = ACTIONS[action];
  return holdsScope(caller.scopes, caller.kind === 'member' ? (a.member ?? a.key) : a.key);
}
