'use client';

import { useQuery } from '@tanstack/react-query';
import { Lock } from 'lucide-react';
import { useTRPC } from '@/client/trpc/react';
import { ROLE_DEFINITIONS, ROLES, type Role } from '@/src/contract/roles';
import { holdsScope } from '@/src/contract/scopes';
import { cn } from '@/components/ui/cn';
import { ACTIONS, allows, type Action, type Caller } from './access-rules';

export { ACTIONS, allows, type Action, type Caller };

const ROLE_PLURAL: Record<Role, string> = {
  owner: 'Owners',
  admin: 'Admins',
  developer: 'Developers',
  billing: 'Billing members',
  viewer: 'Viewers',
};
const ROLE_ARTICLE: Record<Role, string> = {
  owner: 'the owner',
  admin: 'an admin',
  developer: 'a developer',
  billing: 'a billing member',
  viewer: 'a viewer',
};

/**
 * Who to ask: the roles that may change roles (members:manage), "the owner or an admin": they can
 * give the caller a role that may, or do it themselves.
 */
function whoToAsk(): string {
  const names = ROLES.filter((r) => holdsScope(ROLE_DEFINITIONS[r].scopes, 'members:manage')).map((r) => ROLE_ARTICLE[r]);
  return names.length <= 1 ? (names[0] ?? 'the owner') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** Why `caller` may not do `action`, in words: "Viewers can't create, rotate or revoke keys — ask the owner or an admin." */
export function deniedReason(caller: Caller, action: Action): string {
  const who = caller.role ? ROLE_PLURAL[caller.role] : 'This API key';
  return `${who} can't ${ACTIONS[action].words} — ask ${whoToAsk()}.`;
}

/**
 * Why `caller` may not give a key `scope` (create) or rotate a key that has it: a key never holds
 * more than its creator (src/keys/create.ts, rotate.ts). "Developers can't rotate a key with the
 * scope “*” — ask the owner." The ones to ask are the roles holding both the scope and keys:manage.
 */
export function keyScopeDenied(caller: Caller, scope: string, verb: 'give' | 'rotate'): string | undefined {
  if (holdsScope(caller.scopes, scope)) return undefined;
  const who = caller.role ? ROLE_PLURAL[caller.role] : 'This API key';
  const holders = ROLES.filter(
    (r) => holdsScope(ROLE_DEFINITIONS[r].scopes, scope) && holdsScope(ROLE_DEFINITIONS[r].scopes, 'keys:manage'),
  );
  const ask = holders.map((r) => ROLE_ARTICLE[r]);
  const whom = ask.length <= 1 ? (ask[0] ?? 'the owner') : `${ask.slice(0, -1).join(', ')} or ${ask.at(-1)}`;
  const what = verb === 'give' ? `can't give a key the scope “${scope}”` : `can't rotate a key with the scope “${scope}”`;
  return `${who} ${what} — ask ${whom}.`;
}

/** The caller (`members.me`), shared by every component that asks: one request per page. */
export function useCaller() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.members.me.queryOptions({}), staleTime: 60_000 });
}

/**
 * Whether the caller may do `action`: `allowed` is undefined while `members.me` loads (or when
 * it failed: the API still decides), `reason` says why not.
 */
export function useAccess(action: Action): { allowed: boolean | undefined; reason: string } {
  const me = useCaller();
  if (!me.data) return { allowed: undefined, reason: '' };
  const caller = me.data as Caller;
  const allowed = allows(caller, action);
  return { allowed, reason: allowed ? '' : deniedReason(caller, action) };
}

/** The reason a control is off, beside it (linked to it with aria-describedby through `id`). */
export function DeniedNote({ id, reason, className }: { id: string; reason: string; className?: string }) {
  if (!reason) return null;
  return (
    <p id={id} data-testid="denied-reason" className={cn('flex items-start gap-1.5 text-sm text-slate-700 dark:text-slate-300', className)}>
      <Lock aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <span>{reason}</span>
    </p>
  );
}
