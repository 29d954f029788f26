import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Role } from '../contract/roles';
import type { Executor } from '../db';
import { tenantMembers, type TenantMemberRow } from '../db/schema';
import { AppError, notFound } from '../lib/errors';
import type { Services } from '../services';
import { presentMember } from './present';

/** The tenant's member with that user id, locked for update, or 404. */
export async function lockedMember(tx: Executor, tenantId: string, userId: string): Promise<TenantMemberRow> {
  const [row] = await tx
    .select()
    .from(tenantMembers)
    .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.subject, userId)))
    .limit(1)
    .for('update');
  if (!row) throw notFound('member');
  return row;
}

const ownerUntouchable = () =>
  new AppError('forbidden', "The owner's role changes only by transferring ownership (POST /api/v1/members/transfer-ownership).", {
    reason: 'owner',
  });

const whereMember = (row: TenantMemberRow) =>
  and(eq(tenantMembers.tenantId, row.tenantId), eq(tenantMembers.issuer, row.issuer), eq(tenantMembers.subject, row.subject));

/** PATCH /api/v1/members/{user_id} {role}: any role but owner, for anyone but the owner. */
export async function changeMemberRole(svc: Services, principal: Principal, userId: string, role: Role) {
  return svc.db.transaction(async (tx) => {
    const row = await lockedMember(tx, principal.tenantId, userId);
    if (row.role === 'owner') throw ownerUntouchable();
    if (row.role !== role) {
      await tx.update(tenantMembers).set({ role, updatedAt: new Date() }).where(whereMember(row));
      await recordAudit(tx, principal.tenantId, {
        action: 'member.role_changed',
        target: { type: 'member', id: userId },
        changes: { email: row.email, from: row.role, to: role },
      });
    }
    return presentMember({ ...row, role });
  });
}

/**
 * DELETE /api/v1/members/{user_id}: the member's bearer tokens and dashboard sessions stop acting
 * for this tenant on their next request (membership is read on every request). Not the owner.
 */
export async function removeMember(svc: Services, principal: Principal, userId: string) {
  return svc.db.transaction(async (tx) => {
    const row = await lockedMember(tx, principal.tenantId, userId);
    if (row.role === 'owner')
      throw new AppError('forbidden', 'The owner cannot be removed: transfer ownership first.', { reason: 'owner' });
    await tx.delete(tenantMembers).where(whereMember(row));
    await recordAudit(tx, principal.tenantId, {
      action: 'member.removed',
      target: { type: 'member', id: userId },
      changes: { email: row.email, role: row.role },
    });
    return { user_id: userId, removed: true as const };
  });
}

/** The signed-in member calling, or 403 for an API key. */
export function signedInMember(principal: Principal, what: string) {
  if (!principal.member)
    throw new AppError('forbidden', `Only a signed-in member can ${what} (a bearer token, not an API key).`, { reason: 'member_only' });
  return principal.member;
}

/** POST /api/v1/members/leave: the signed-in member leaves the tenant (the owner transfers ownership first). */
export async function leaveTenant(svc: Services, principal: Principal) {
  const me = signedInMember(principal, 'leave a tenant');
  if (me.role === 'owner') throw new AppError('forbidden', 'The owner cannot leave: transfer ownership first.', { reason: 'owner' });
  return svc.db.transaction(async (tx) => {
    const row = await lockedMember(tx, principal.tenantId, me.userId);
    await tx.delete(tenantMembers).where(whereMember(row));
    await recordAudit(tx, principal.tenantId, {
      action: 'member.left',
      target: { type: 'member', id: me.userId },
      changes: { email: row.email, role: row.role },
    });
    return { tenant_id: principal.tenantId, left: true as const };
  });
}
