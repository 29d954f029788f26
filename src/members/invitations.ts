import { and, count, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import { recordAudit, type AuditActor } from '../audit/record';
import type { BearerClaims } from '../auth/bearer';
import type { Principal } from '../auth/principal';
import { PLAN_NAMES, PLANS } from '../contract/plans';
import type { Role } from '../contract/roles';
import type { Executor } from '../db';
import { memberInvitations, tenantMembers, tenants, type MemberInvitationRow } from '../db/schema';
import { emailIsProven } from '../identity/link';
import { hashToken } from '../identity/users';
import { AppError, conflict, notFound, planRequired } from '../lib/errors';
import { newId, randomBase62 } from '../lib/ids';
import type { Services } from '../services';
import { sendInvitationMail } from './mail';
import { addMember, findMembership } from './membership';
import type { InviteInput } from './schema';

/** How long an invitation's link works. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

export const acceptUrl = (svc: Services, token: string) => `${svc.config.publicBaseUrl.replace(/\/+$/, '')}/invitations/${token}`;

function newToken() {
  const token = `amp_inv_${randomBase62(40)}`;
  return { token, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + INVITATION_TTL_MS) };
}

/** The tenant row, locked for update: invitations of one tenant are decided one at a time. */
async function lockTenant(tx: Executor, tenantId: string) {
  const [tenant] = await tx.select().from(tenants).where(eq(tenants.id, tenantId)).for('update');
  if (!tenant) throw notFound('tenant');
  return tenant;
}

/**
 * The plan's seats hold one more person: members and pending invitations count. Past them, 403
 * `plan_required` naming the lowest plan with room, or 409 when no plan has more.
 */
async function assertSeatFree(tx: Executor, tenant: { id: string; plan: (typeof PLAN_NAMES)[number] }) {
  const seats = PLANS[tenant.plan].seats;
  if (seats === null) return;
  const [members] = await tx.select({ n: count() }).from(tenantMembers).where(eq(tenantMembers.tenantId, tenant.id));
  const [pending] = await tx
    .select({ n: count() })
    .from(memberInvitations)
    .where(
      and(
        eq(memberInvitations.tenantId, tenant.id),
        isNull(memberInvitations.acceptedAt),
        isNull(memberInvitations.revokedAt),
        ne(memberInvitations.role, 'owner'),
        gt(memberInvitations.expiresAt, sql`now()`),
      ),
    );
  const needed = members!.n + pending!.n + 1;
  if (needed <= seats) return;
  const roomy = PLAN_NAMES.find((p) => p !== 'enterprise' && (PLANS[p].seats === null || PLANS[p].seats! >= needed));
  if (roomy) throw planRequired(roomy, `more than ${seats} member${seats === 1 ? '' : 's'} (invitations pending count)`);
  throw conflict(`The ${tenant.plan} plan has ${seats} seats, all taken by members and pending invitations.`);
}

/**
 * POST /api/v1/members/invitations: invites `email` with a role (never `owner`). 409 when that
 * email is already a member or has a pending invitation; seats per plan. The accept link is in the
 * answer and mailed after the commit.
 */
export async function inviteMember(svc: Services, principal: Principal, input: InviteInput) {
  const email = input.email.toLowerCase();
  const { token, tokenHash, expiresAt } = newToken();
  const { invitation, tenantName } = await svc.db.transaction(async (tx) => {
    const tenant = await lockTenant(tx, principal.tenantId);
    const [member] = await tx
      .select({ subject: tenantMembers.subject })
      .from(tenantMembers)
      .where(and(eq(tenantMembers.tenantId, tenant.id), sql`lower(${tenantMembers.email}) = ${email}`))
      .limit(1);
    if (member) throw conflict(`${email} is already a member of this tenant.`);
    const [pending] = await tx
      .select({ id: memberInvitations.id })
      .from(memberInvitations)
      .where(
        and(
          eq(memberInvitations.tenantId, tenant.id),
          eq(memberInvitations.email, email),
          isNull(memberInvitations.acceptedAt),
          isNull(memberInvitations.revokedAt),
          ne(memberInvitations.role, 'owner'),
          gt(memberInvitations.expiresAt, sql`now()`),
        ),
      )
      .limit(1);
    // The id is for API callers (a field); the message is what the dashboard shows a person.
    if (pending) throw new AppError('conflict', `${email} has a pending invitation: resend or revoke it.`, { invitation_id: pending.id });
    await assertSeatFree(tx, tenant);
    const [row] = await tx
      .insert(memberInvitations)
      .values({
        id: newId('invite'),
        tenantId: tenant.id,
        email,
        role: input.role,
        tokenHash,
        invitedBy: principal.member?.userId ?? null,
        expiresAt,
      })
      .returning();
    await recordAudit(tx, tenant.id, {
      action: 'member.invited',
      target: { type: 'invitation', id: row!.id },
      changes: { email, role: input.role },
    });
    return { invitation: row!, tenantName: tenant.agentName };
  });
  const link = acceptUrl(svc, token);
  await sendInvitationMail(svc, { to: email, tenantName, role: input.role, link });
  return { id: invitation.id, email, role: invitation.role, expires_at: expiresAt.toISOString(), accept_url: link };
}

/** A pending invitation of the tenant (not accepted, not revoked, not a transfer), or 404. */
async function pendingInvitation(tx: Executor, tenantId: string, id: string): Promise<MemberInvitationRow> {
  const [row] = await tx
    .select()
    .from(memberInvitations)
    .where(
      and(
        eq(memberInvitations.tenantId, tenantId),
        eq(memberInvitations.id, id),
        isNull(memberInvitations.acceptedAt),
        isNull(memberInvitations.revokedAt),
        ne(memberInvitations.role, 'owner'),
      ),
    )
    .for('update');
  if (!row) throw notFound('invitation');
  return row;
}

/**
 * POST /api/v1/members/invitations/{id}/resend: a new link (the old one stops working) and seven
 * more days, mailed again. An expired invitation may be resent while a seat is free.
 */
export async function resendInvitation(svc: Services, principal: Principal, id: string) {
  const { token, tokenHash, expiresAt } = newToken();
  const { row, tenantName } = await svc.db.transaction(async (tx) => {
    const tenant = await lockTenant(tx, principal.tenantId);
    const current = await pendingInvitation(tx, tenant.id, id);
    if (current.expiresAt.getTime() <= Date.now()) await assertSeatFree(tx, tenant);
    const [updated] = await tx
      .update(memberInvitations)
      .set({ tokenHash, expiresAt, updatedAt: new Date() })
      .where(eq(memberInvitations.id, id))
      .returning();
    await recordAudit(tx, tenant.id, {
      action: 'member.invitation_resent',
      target: { type: 'invitation', id },
      changes: { email: current.email },
    });
    return { row: updated!, tenantName: tenant.agentName };
  });
  const link = acceptUrl(svc, token);
  await sendInvitationMail(svc, { to: row.email, tenantName, role: row.role, link });
  return { id: row.id, email: row.email, role: row.role, expires_at: expiresAt.toISOString(), accept_url: link };
}

/** DELETE /api/v1/members/invitations/{id}: its link stops working at once. */
export async function revokeInvitation(svc: Services, principal: Principal, id: string) {
  return svc.db.transaction(async (tx) => {
    const row = await pendingInvitation(tx, principal.tenantId, id);
    await tx.update(memberInvitations).set({ revokedAt: new Date(), updatedAt: new Date() }).where(eq(memberInvitations.id, id));
    await recordAudit(tx, principal.tenantId, {
      action: 'member.invitation_revoked',
      target: { type: 'invitation', id },
      changes: { email: row.email },
    });
    return { id, revoked: true as const };
  });
}

/** The invitation a token names, whatever its state, or 404. */
async function invitationByToken(db: Executor, token: string) {
  const [row] = await db
    .select()
    .from(memberInvitations)
    .where(eq(memberInvitations.tokenHash, hashToken(token)))
    .limit(1);
  return row;
}

/**
 * Whether the signed-in user may take an invitation made out to its email: the email matches,
 * and is proven where the identity provider can prove it (an external provider's verified email;
 * the built-in provider's mailed confirmation when SMTP_URL is set). The built-in provider
 * without mail confirms no email, so there the link itself is the proof (docs/organizations.md).
 */
async function assertInvitee(svc: Services, claims: BearerClaims, token: string, row: MemberInvitationRow): Promise<void> {
  if (!claims.email || claims.email !== row.email.toLowerCase())
    throw new AppError('forbidden', `This invitation is for ${row.email}: sign in with that email to accept it.`, {
      reason: 'email_mismatch',
    });
  const provable = !claims.builtin || Boolean(svc.config.smtpUrl);
  if (provable && !(await emailIsProven(svc, claims, token)))
    throw new AppError('forbidden', 'Confirm your email address first, then accept the invitation.', { reason: 'email_unconfirmed' });
}

/** A token's invitation that may still be taken, or the refusal: 404 unknown or revoked, 409 used or expired. */
export async function takeableInvitation(db: Executor, token: string, kind: 'join' | 'transfer'): Promise<MemberInvitationRow> {
  const row = await invitationByToken(db, token);
  if (!row || row.revokedAt || (row.role === 'owner') !== (kind === 'transfer')) throw notFound('invitation');
  if (row.acceptedAt) throw new AppError('conflict', 'This invitation has already been used.', { reason: 'invitation_used' });
  if (row.expiresAt.getTime() <= Date.now())
    throw new AppError('conflict', 'This invitation has expired: ask for a new one.', { reason: 'invitation_expired' });
  return row;
}

/** Marks the invitation used, once: false when another request took it first. */
export async function consumeInvitation(tx: Executor, id: string): Promise<boolean> {
  const taken = await tx
    .update(memberInvitations)
    .set({ acceptedAt: new Date(), updatedAt: new Date() })
    .where(
      and(
        eq(memberInvitations.id, id),
        isNull(memberInvitations.acceptedAt),
        isNull(memberInvitations.revokedAt),
        gt(memberInvitations.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: memberInvitations.id });
  return taken.length === 1;
}

/**
 * POST /api/v1/members/invitations/{token}/accept with the signed-in user's bearer token: the
 * user becomes a member with the invitation's role. Single-use; 409 when the user is a member.
 */
export async function acceptInvitation(
  svc: Services,
  claims: BearerClaims,
  bearer: string,
  token: string,
): Promise<{ tenant_id: string; role: Role }> {
  const row = await takeableInvitation(svc.db, token, 'join');
  await assertInvitee(svc, claims, bearer, row);
  const identity = { issuer: claims.issuer, subject: claims.subject };
  if (await findMembership(svc.db, identity, row.tenantId)) throw conflict('You are already a member of this tenant.');
  const actor: AuditActor = { type: 'user', id: claims.subject, email: claims.email };
  return svc.db.transaction(async (tx) => {
    if (!(await consumeInvitation(tx, row.id)))
      throw new AppError('conflict', 'This invitation has already been used.', { reason: 'invitation_used' });
    if (!(await addMember(tx, row.tenantId, identity, claims.email!, row.role))) throw conflict('You are already a member of this tenant.');
    await recordAudit(
      tx,
      row.tenantId,
      {
        action: 'member.joined',
        target: { type: 'member', id: claims.subject },
        changes: { email: claims.email, role: row.role, invitation_id: row.id },
      },
      actor,
    );
    return { tenant_id: row.tenantId, role: row.role };
  });
}

/**
 * GET /api/v1/invitations/{token}: what a link offers, for the page that accepts it (the token is
 * the credential: whoever holds the link may read this). Unknown and revoked links are 404; used
 * and expired ones say so in `status`.
 */
export async function describeInvitation(svc: Services, token: string) {
  const row = await invitationByToken(svc.db, token);
  if (!row || row.revokedAt) throw notFound('invitation');
  const [tenant] = await svc.db
    .select({ name: tenants.agentName, deletedAt: tenants.deletedAt })
    .from(tenants)
    .where(eq(tenants.id, row.tenantId));
  if (!tenant || tenant.deletedAt) throw notFound('invitation');
  const [inviter] = row.invitedBy
    ? await svc.db
        .select({ email: tenantMembers.email })
        .from(tenantMembers)
        .where(and(eq(tenantMembers.tenantId, row.tenantId), eq(tenantMembers.subject, row.invitedBy)))
        .limit(1)
    : [];
  const status = row.acceptedAt ? 'used' : row.expiresAt.getTime() <= Date.now() ? 'expired' : 'pending';
  return {
    kind: row.role === 'owner' ? ('ownership_transfer' as const) : ('join' as const),
    tenant_id: row.tenantId,
    tenant_name: tenant.name,
    email: row.email,
    role: row.role,
    invited_by: inviter?.email ?? null,
    status: status as 'pending' | 'used' | 'expired',
    expires_at: row.expiresAt.toISOString(),
  };
}

export { lockTenant, newToken };
