import { z } from 'zod';
import { EMAIL_MAX_LENGTH } from '../contract/limits';
import { assignableRoleSchema, MEMBER_SCOPES, roleSchema } from '../contract/roles';
import { SCOPES } from '../contract/scopes';
import { listParams, pageSchema } from '../lib/pagination';

export const memberView = z
  .object({
    user_id: z.string().describe("The member's user id at the identity provider (the token's `sub`)"),
    email: z.string(),
    role: roleSchema,
    joined_at: z.string().describe('ISO 8601'),
  })
  .meta({ id: 'Member' });
export type MemberView = z.infer<typeof memberView>;

export const memberPage = pageSchema(memberView).meta({ id: 'MemberPage' });
export const listMembersInput = z.object(listParams);

export const roleView = z
  .object({
    role: roleSchema,
    description: z.string(),
    scopes: z.array(z.enum([...SCOPES, ...MEMBER_SCOPES])).describe('What the role may do: `*` is everything'),
    assignable: z.boolean().describe('Whether an invitation or a role change may give it (ownership moves only by transfer)'),
  })
  .meta({ id: 'Role' });
export const rolesView = z.object({ data: z.array(roleView) }).meta({ id: 'RoleList' });

export const invitationView = z
  .object({
    id: z.string(),
    email: z.string(),
    role: roleSchema,
    status: z.enum(['pending', 'expired']),
    expires_at: z.string().describe('ISO 8601'),
    created_at: z.string().describe('ISO 8601'),
    invited_by: z.string().nullable().describe('The user id of the member who invited, null for an API key or an operator'),
  })
  .meta({ id: 'MemberInvitation' });
export const invitationList = z.object({ data: z.array(invitationView) }).meta({ id: 'MemberInvitationList' });

export const sentInvitation = z
  .object({
    id: z.string(),
    email: z.string(),
    role: roleSchema,
    expires_at: z.string().describe('ISO 8601'),
    accept_url: z
      .string()
      .describe(
        'The link that accepts it (single-use, shown only here: the inviter may copy it; it is also mailed when the service sends mail)',
      ),
  })
  .meta({ id: 'SentInvitation' });

export const inviteInput = z.strictObject({
  email: z.email().max(EMAIL_MAX_LENGTH),
  role: assignableRoleSchema,
});
export type InviteInput = z.infer<typeof inviteInput>;

export const invitationIdInput = z.object({ id: z.string().max(64) });
export const invitationTokenInput = z.object({ token: z.string().max(128) });

export const acceptedInvitation = z.object({ tenant_id: z.string(), role: roleSchema }).meta({ id: 'AcceptedInvitation' });

export const userIdInput = z.object({ user_id: z.string().min(1).max(255) });
export const changeRoleInput = z.strictObject({ user_id: z.string().min(1).max(255), role: assignableRoleSchema });
export const removedMember = z.object({ user_id: z.string(), removed: z.literal(true) }).meta({ id: 'RemovedMember' });
export const revokedInvitation = z.object({ id: z.string(), revoked: z.literal(true) }).meta({ id: 'RevokedInvitation' });
export const leftTenant = z.object({ tenant_id: z.string(), left: z.literal(true) }).meta({ id: 'LeftTenant' });

export const pendingTransfer = z
  .object({
    to_user_id: z.string(),
    status: z.literal('pending'),
    expires_at: z.string().describe('ISO 8601'),
    confirm_url: z.string().describe('The link the new owner confirms with (also mailed to them when the service sends mail)'),
  })
  .meta({ id: 'PendingOwnershipTransfer' });
export const completedTransfer = z
  .object({ tenant_id: z.string(), owner_user_id: z.string(), previous_owner_user_id: z.string() })
  .meta({ id: 'OwnershipTransfer' });
export const acceptOwnershipInput = z.strictObject({ token: z.string().min(1).max(128) });

export const callerView = z
  .object({
    tenant_id: z.string(),
    kind: z.enum(['member', 'api_key']),
    user_id: z.string().nullable(),
    email: z.string().nullable(),
    role: roleSchema.nullable().describe("The member's role; null for an API key"),
    key_id: z.string().nullable(),
    scopes: z.array(z.string()).describe("What the caller may do here: its role's scopes, or the key's"),
    memberships: z
      .array(z.object({ tenant_id: z.string(), agent_name: z.string(), role: roleSchema }))
      .describe('Every tenant the member belongs to, the default (oldest) first; empty for an API key'),
  })
  .meta({ id: 'Caller' });

export const invitationLookup = z
  .object({
    kind: z.enum(['join', 'ownership_transfer']),
    tenant_id: z.string(),
    tenant_name: z.string(),
    email: z.string().describe('The email the invitation is for: accept it signed in with that email'),
    role: roleSchema,
    invited_by: z.string().nullable().describe("The inviting member's email, null for an API key or an operator"),
    status: z.enum(['pending', 'used', 'expired']),
    expires_at: z.string().describe('ISO 8601'),
  })
  .meta({ id: 'InvitationLookup' });
