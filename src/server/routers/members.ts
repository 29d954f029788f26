import { describeCaller, listInvitations, listMembers, listRoles } from '../../members/list';
import { acceptInvitation, describeInvitation, inviteMember, resendInvitation, revokeInvitation } from '../../members/invitations';
import { changeMemberRole, leaveTenant, removeMember } from '../../members/manage';
import { acceptOwnership, transferOwnership } from '../../members/ownership';
import {
  acceptedInvitation,
  callerView,
  acceptOwnershipInput,
  changeRoleInput,
  completedTransfer,
  invitationIdInput,
  invitationList,
  invitationLookup,
  invitationTokenInput,
  inviteInput,
  leftTenant,
  listMembersInput,
  memberPage,
  memberView,
  pendingTransfer,
  removedMember,
  revokedInvitation,
  rolesView,
  sentInvitation,
  userIdInput,
} from '../../members/schema';
import { z } from 'zod';
import { apiProcedure, bearerProcedure, publicProcedure, router } from '../trpc';

const tags = ['members'];
const readMembers = apiProcedure('*', undefined, 'members:read');
const manageMembers = apiProcedure('*', undefined, 'members:manage');
const anyMember = apiProcedure();

/** Members, roles and invitations (docs/organizations.md). API keys reach them through `*`. */
export const membersRouter = router({
  list: readMembers
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/members',
        tags,
        summary: 'List members',
        description: 'The people of the tenant with their roles, newest first.',
        errorResponses: { 400: 'Invalid query' },
      },
    })
    .input(listMembersInput)
    .output(memberPage)
    .query(({ ctx, input }) => listMembers(ctx.svc, ctx.principal, input)),

  me: anyMember
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/members/me',
        tags,
        summary: 'Who is calling',
        description:
          'The caller in this tenant: a member with its role and scopes, and every tenant it belongs to (name one with `X-Tenant-Id`), or an API key with its scopes.',
      },
    })
    .input(z.object({}))
    .output(callerView)
    .query(({ ctx }) => describeCaller(ctx.svc, ctx.principal)),

  roles: anyMember
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/members/roles',
        tags,
        summary: 'List roles',
        description: 'Every role and the scopes it holds. A member is refused what its role lacks with 403 `insufficient_scope`.',
      },
    })
    .input(z.object({}))
    .output(rolesView)
    .query(() => listRoles()),

  invitations: readMembers
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/members/invitations',
        tags,
        summary: 'List pending invitations',
        description: 'Invitations neither accepted nor revoked, expired ones marked so for a week.',
      },
    })
    .input(z.object({}))
    .output(invitationList)
    .query(({ ctx }) => listInvitations(ctx.svc, ctx.principal)),

  invite: manageMembers
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/members/invitations',
        tags,
        summary: 'Invite a member',
        description:
          "Invites an email with a role (`admin`, `developer`, `billing` or `viewer`; ownership moves only by transfer). The answer holds the single-use `accept_url` (7 days), which is also mailed when the service sends mail. Members and pending invitations count against the plan's seats: past them 403 `plan_required`. 409 when the email is a member or already invited.",
        errorResponses: { 400: 'Invalid body', 409: 'Already a member, already invited, or no seat on any plan' },
      },
      successStatus: 201,
    })
    .input(inviteInput)
    .output(sentInvitation)
    .mutation(({ ctx, input }) => inviteMember(ctx.svc, ctx.principal, input)),

  resendInvitation: manageMembers
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/members/invitations/{id}/resend',
        tags,
        summary: 'Resend an invitation',
        description: 'A new link (the previous one stops working) valid 7 more days, mailed again.',
        errorResponses: { 404: 'No such pending invitation' },
      },
    })
    .input(invitationIdInput)
    .output(sentInvitation)
    .mutation(({ ctx, input }) => resendInvitation(ctx.svc, ctx.principal, input.id)),

  revokeInvitation: manageMembers
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/members/invitations/{id}',
        tags,
        summary: 'Revoke an invitation',
        description: 'Its link stops working at once.',
        errorResponses: { 404: 'No such pending invitation' },
      },
    })
    .input(invitationIdInput)
    .output(revokedInvitation)
    .mutation(({ ctx, input }) => revokeInvitation(ctx.svc, ctx.principal, input.id)),

  acceptInvitation: bearerProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/members/invitations/{token}/accept',
        protect: false,
        tags,
        summary: 'Accept an invitation',
        description:
          "With the signed-in user's `Authorization: Bearer <token>` (the user need not belong to any tenant yet). The user's email must be the invitation's, and proven where the identity provider can prove it. The user becomes a member with the invitation's role; the link works once.",
        errorResponses: {
          401: 'Missing or invalid bearer token',
          403: 'Signed in with another email, or the email is not confirmed (`reason`)',
          404: 'No such invitation, or it was revoked',
          409: 'Already used or expired (`reason`), or already a member',
        },
      },
    })
    .input(invitationTokenInput)
    .output(acceptedInvitation)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.svc, ctx.claims, ctx.bearerToken, input.token)),

  lookupInvitation: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/invitations/{token}',
        protect: false,
        tags,
        summary: 'Look at an invitation',
        description:
          'What an invitation link (or an ownership offer) offers, for the page that accepts it: the tenant, the role, the invited email, who invited, its status (`pending`, `used`, `expired`) and expiry. The token is the credential. Unknown and revoked links are 404.',
        errorResponses: { 404: 'No such invitation, or it was revoked' },
      },
    })
    .input(invitationTokenInput)
    .output(invitationLookup)
    .query(({ ctx, input }) => describeInvitation(ctx.svc, input.token)),

  changeRole: manageMembers
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/api/v1/members/{user_id}',
        tags,
        summary: "Change a member's role",
        description: 'Any role but `owner`, for any member but the owner (whose role changes only by transfer: 403).',
        errorResponses: { 400: 'Invalid body', 404: 'No such member' },
      },
    })
    .input(changeRoleInput)
    .output(memberView)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.svc, ctx.principal, input.user_id, input.role)),

  remove: manageMembers
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/members/{user_id}',
        tags,
        summary: 'Remove a member',
        description:
          "The member's tokens and dashboard sessions stop acting for this tenant on their next request. The owner cannot be removed (403).",
        errorResponses: { 404: 'No such member' },
      },
    })
    .input(userIdInput)
    .output(removedMember)
    .mutation(({ ctx, input }) => removeMember(ctx.svc, ctx.principal, input.user_id)),

  leave: anyMember
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/members/leave',
        tags,
        summary: 'Leave the tenant',
        description: 'The signed-in member leaves (an API key cannot: 403). The owner transfers ownership first (403).',
        errorResponses: { 403: 'An API key, or the owner' },
      },
    })
    .input(z.object({}))
    .output(leftTenant)
    .mutation(({ ctx }) => leaveTenant(ctx.svc, ctx.principal)),

  transferOwnership: anyMember
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/members/transfer-ownership',
        tags,
        summary: 'Offer ownership to a member',
        description:
          'The signed-in owner offers the tenant to another member, who confirms with the `confirm_url` token (mailed to them) within 7 days; the owner then becomes an admin. A newer offer replaces a pending one.',
        errorResponses: { 400: 'Invalid body, or the owner named', 403: 'Not the signed-in owner', 404: 'No such member' },
      },
      successStatus: 202,
    })
    .input(userIdInput)
    .output(pendingTransfer)
    .mutation(({ ctx, input }) => transferOwnership(ctx.svc, ctx.principal, input.user_id)),

  acceptOwnership: bearerProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/members/transfer-ownership/accept',
        protect: false,
        tags,
        summary: 'Confirm an ownership offer',
        description:
          "With the signed-in user's `Authorization: Bearer <token>`: the member the offer names becomes the owner of the offer's tenant (the token names it; no `X-Tenant-Id` needed), and the previous owner an admin, in one transaction.",
        errorResponses: {
          400: 'Invalid body',
          401: 'Missing or invalid bearer token',
          403: 'Not the member the offer names (`reason: not_addressee`)',
          404: 'No such offer',
          409: 'Used or expired (`reason`)',
        },
      },
    })
    .input(acceptOwnershipInput)
    .output(completedTransfer)
    .mutation(({ ctx, input }) => acceptOwnership(ctx.svc, ctx.claims, input.token)),
});
