import type { MemberInvitationRow, TenantMemberRow } from '../db/schema';
import type { MemberView } from './schema';

export function presentMember(row: Pick<TenantMemberRow, 'subject' | 'email' | 'role' | 'createdAt'>): MemberView {
  return { user_id: row.subject, email: row.email, role: row.role, joined_at: row.createdAt.toISOString() };
}

export function presentInvitation(row: MemberInvitationRow, now = Date.now()) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: row.expiresAt.getTime() > now ? ('pending' as const) : ('expired' as const),
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    invited_by: row.invitedBy,
  };
}
