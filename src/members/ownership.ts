import { and, eq, isNull } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import { memberInvitations, tenantMembers } from '../db/schema';
import { AppError, conflict, invalidRequest } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Services } from '../services';
import { acceptUrl, consumeInvitation, lockTenant, newToken, takeableInvitation } from './invitations';
import { sendInvitationMail } from './mail';
import { lockedMember, signedInMember } from './manage';
import { findMembership } from './membership';

/**
 * POST /api/v1/members/transfer-ownership {user_id}: the signed-in owner offers the tenant to
 * another member, who confirms (acceptOwnership) within 7 days with the mailed link's token. A
 * newer offer replaces a pending one. Nothing changes until it is confirmed.
 */
export async function transferOwnership(svc: Services, principal: Principal, userId: string) {
  const me = signedInMember(principal, 'transfer ownership');
  if (me.role !== 'owner') throw new AppError('forbidden', 'Only the owner can transfer ownership.', { reason: 'owner_only' });
  if (userId === me.userId) throw invalidRequest('You already own this tenant.', [{ path: 'user_id', message: 'Is the owner' }]);
  const { token, tokenHash, expiresAt } = newToken();
  const { target, tenantName } = await svc.db.transaction(async (tx) => {
    const tenant = await lockTenant(tx, principal.tenantId);
    const target = await lockedMember(tx, tenant.id, userId);
    await tx
      .update(memberInvitations)
      .set({ revokedAt: new Date(), updatedAt: new Date() })
      .where(
        and(
          eq(memberInvitations.tenantId, tenant.id),
          eq(memberInvitations.role, 'owner'),
          isNull(memberInvitations.acceptedAt),
          isNull(memberInvitations.revokedAt),
        ),
      );
    await tx.insert(memberInvitations).values({
      id: newId('invite'),
      tenantId: tenant.id,
      email: target.email.toLowerCase(),
      role: 'owner',
      tokenHash,
      invitedBy: me.userId,
      expiresAt,
    });
    await recordAudit(tx, tenant.id, {
      action: 'ownership.transfer_offered',
      target: { type: 'member', id: userId },
      changes: { email: target.email },
    });
    return { target, tenantName: tenant.agentName };
  });
  const link = `${acceptUrl(svc, token)}?transfer=1`;
  await sendInvitationMail(svc, { to: target.email, tenantName, role: 'owner', link, transfer: true });
  return { to_user_id: userId, status: 'pending' as const, expires_at: expiresAt.toISOString(), confirm_url: link };
}

/**
 * POST /api/v1/members/transfer-ownership/accept {token} with the signed-in user's bearer token:
 * the member the offer names becomes the owner of the offer's tenant, and the owner becomes an
 * admin, in one transaction. The token names the tenant (no X-Tenant-Id needed).
 */
export async function acceptOwnership(svc: Services, claims: { issuer: string; subject: string }, token: string) {
  const offer = await takeableInvitation(svc.db, token, 'transfer');
  const member = await findMembership(svc.db, claims, offer.tenantId);
  if (!member || member.email.toLowerCase() !== offer.email)
    throw new AppError('forbidden', 'This ownership offer is for another member.', { reason: 'not_addressee' });
  const me = { userId: claims.subject };
  return svc.db.transaction(async (tx) => {
    await lockTenant(tx, offer.tenantId);
    if (!(await consumeInvitation(tx, offer.id)))
      throw new AppError('conflict', 'This offer has already been used.', { reason: 'invitation_used' });
    const [owner] = await tx
      .select()
      .from(tenantMembers)
      .where(and(eq(tenantMembers.tenantId, offer.tenantId), eq(tenantMembers.role, 'owner')))
      .for('update');
    const heir = await lockedMember(tx, offer.tenantId, me.userId);
    if (heir.role === 'owner') throw conflict('You already own this tenant.');
    if (owner) {
      await tx
        .update(tenantMembers)
        .set({ role: 'admin', updatedAt: new Date() })
        .where(
          and(eq(tenantMembers.tenantId, owner.tenantId), eq(tenantMembers.issuer, owner.issuer), eq(tenantMembers.subject, owner.subject)),
        );
    }
    await tx
      .update(tenantMembers)
      .set({ role: 'owner', updatedAt: new Date() })
      .where(
        and(eq(tenantMembers.tenantId, heir.tenantId), eq(tenantMembers.issuer, heir.issuer), eq(tenantMembers.subject, heir.subject)),
      );
    await recordAudit(
      tx,
      offer.tenantId,
      {
        action: 'ownership.transferred',
        target: { type: 'member', id: me.userId },
        changes: { from: owner?.subject ?? null, to: me.userId, previous_owner_role: 'admin' },
      },
      { type: 'user', id: claims.subject, email: member.email },
    );
    return { tenant_id: offer.tenantId, owner_user_id: me.userId, previous_owner_user_id: owner?.subject ?? '' };
  });
}
