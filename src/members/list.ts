import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { ASSIGNABLE_ROLES, ROLE_DEFINITIONS, ROLES } from '../contract/roles';
import { memberInvitations, tenantMembers } from '../db/schema';
import { beforeCursor, decodeCursor, toPage } from '../lib/pagination';
import type { Services } from '../services';
import { listMemberships } from './membership';
import { presentInvitation, presentMember } from './present';

/** GET /api/v1/members: the tenant's members, newest first. */
export async function listMembers(svc: Services, principal: Principal, input: { limit: number; cursor?: string }) {
  const cursor = decodeCursor(input.cursor);
  const rows = await svc.db
    .select()
    .from(tenantMembers)
    .where(and(eq(tenantMembers.tenantId, principal.tenantId), beforeCursor(tenantMembers.createdAt, tenantMembers.subject, cursor)))
    .orderBy(desc(tenantMembers.createdAt), desc(tenantMembers.subject))
    .limit(input.limit + 1);
  return toPage(
    rows.map((r) => ({ ...r, id: r.subject })),
    input.limit,
    presentMember,
  );
}

/** GET /api/v1/members/roles: the role table (src/contract/roles.ts). */
export function listRoles() {
  const assignable = new Set<string>(ASSIGNABLE_ROLES);
  return {
    data: ROLES.map((role) => ({
      role,
      description: ROLE_DEFINITIONS[role].description,
      scopes: [...ROLE_DEFINITIONS[role].scopes],
      assignable: assignable.has(role),
    })),
  };
}

/**
 * GET /api/v1/members/invitations: invitations neither accepted nor revoked (expired ones
 * included, marked so, for a week past their expiry), newest first. Ownership transfers are not
 * invitations to join and are left out.
 */
export async function listInvitations(svc: Services, principal: Principal) {
  const shownSince = new Date(Date.now() - 7 * 86_400_000);
  const rows = await svc.db
    .select()
    .from(memberInvitations)
    .where(
      and(
        eq(memberInvitations.tenantId, principal.tenantId),
        isNull(memberInvitations.acceptedAt),
        isNull(memberInvitations.revokedAt),
        ne(memberInvitations.role, 'owner'),
        gt(memberInvitations.expiresAt, shownSince),
      ),
    )
    .orderBy(desc(memberInvitations.createdAt))
    .limit(500);
  const now = Date.now();
  return { data: rows.map((r) => presentInvitation(r, now)) };
}

/**
 * GET /api/v1/members/me: who the caller is in this tenant (a member and its role, or an API key
 * with its scopes) and, for a member, every tenant it belongs to (for switching with X-Tenant-Id).
 */
export async function describeCaller(svc: Services, principal: Principal) {
  const member = principal.member;
  const memberships = member ? await listMemberships(svc.db, { issuer: member.issuer, subject: member.userId }) : [];
  return {
    tenant_id: principal.tenantId,
    kind: member ? ('member' as const) : ('api_key' as const),
    user_id: member?.userId ?? null,
    email: member?.email ?? null,
    role: member?.role ?? null,
    key_id: principal.keyId ?? null,
    scopes: [...principal.scopes],
    memberships: memberships.map((m) => ({ tenant_id: m.tenantId, agent_name: m.agentName, role: m.role })),
  };
}
