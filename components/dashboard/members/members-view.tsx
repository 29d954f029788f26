'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { ChevronDown, LogOut } from 'lucide-react';
import { useId, useMemo, useState } from 'react';
import { toast } from 'sonner';
import { forgetTenant } from '@/client/tenant';
import { useTRPC, useTRPCClient } from '@/client/trpc/react';
import type { RouterOutputs } from '@/client/trpc/types';
import { ASSIGNABLE_ROLES, type Role } from '@/src/contract/roles';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Copyable } from '@/components/ui/copyable';
import { DataTable } from '@/components/ui/data-table';
import { ActionMenu, ActionMenuItem } from '@/components/ui/dropdown-menu';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { allows, deniedReason, DeniedNote, useCaller, type Caller } from '@/components/dashboard/access';
import { formatDate, formatDateTime } from '@/components/dashboard/format';
import { LoadMore } from '@/components/dashboard/load-more';
import { errorMessage, QueryError } from '@/components/dashboard/query-error';
import { cursorPagesKey, useCursorPages } from '@/components/dashboard/use-cursor-pages';
import { InviteForm, ROLE_LABEL, RoleSelect } from './invite-form';
import { MEMBERS_LIST } from '@/components/dashboard/first-queries';

type Member = RouterOutputs['members']['list']['data'][number];
type Invitation = RouterOutputs['members']['invitations']['data'][number];

/** Members per page, newest first; "Load more" reaches the rest. */

/** A link the page shows once it is made: an invitation's accept link or an ownership offer's. */
export interface SentLink {
  kind: 'invitation' | 'ownership';
  email: string;
  url: string;
  expiresAt: string;
}

/**
 * The tenant's people: members with their roles (change, remove, offer ownership), pending
 * invitations (resend, revoke), the invite form, and leaving the workspace. What the caller's
 * role may not do is disabled or left out with the reason in words (components/dashboard/access.tsx).
 */
export function MembersView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const me = useCaller();
  const caller: Caller | undefined = me.data;
  const canRead = caller ? allows(caller, 'readMembers') : undefined;
  const canManage = caller ? allows(caller, 'manageMembers') : false;
  // Every query starts at once (one round of requests); the lists only for a role that may read them.
  const roles = useQuery(trpc.members.roles.queryOptions({}));
  const members = useCursorPages(trpc.members.list.queryKey(MEMBERS_LIST), (cursor) =>
    client.members.list.query({ ...MEMBERS_LIST, ...(cursor ? { cursor } : {}) }),
  );
  const invitations = useQuery({ ...trpc.members.invitations.queryOptions({}), enabled: canRead !== false });
  const [sent, setSent] = useState<SentLink>();
  const manageNote = useId();
  const workspace = me.data?.memberships.find((m) => m.tenant_id === me.data?.tenant_id)?.agent_name;
  const rows = members.data?.pages.flatMap((p) => p.data) ?? [];

  const self = me.data;
  if (me.isPending) return <SkeletonRows rows={4} label="Loading members" />;
  if (!self || !caller) return <QueryError error={me.error} retry={() => void me.refetch()} />;

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Members"
        description={
          workspace ? (
            <>
              The people who share <span className="font-medium">{workspace}</span>, and what each of them may do.
            </>
          ) : (
            'The people who share this workspace, and what each of them may do.'
          )
        }
      />
      {caller.role || (canRead !== false && !canManage) ? (
        <div className="grid gap-2">
          {caller.role ? (
            <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="my-role">
              You are {ROLE_PHRASE[caller.role]} here.
            </p>
          ) : null}
          {canRead !== false && !canManage ? <DeniedNote id={manageNote} reason={deniedReason(caller, 'manageMembers')} /> : null}
        </div>
      ) : null}
      {canRead === false ? (
        <Alert title="Members are not visible to your role">{deniedReason(caller, 'readMembers')}</Alert>
      ) : (
        <>
          {canManage ? <InviteForm roles={roles} onSent={setSent} /> : null}
          {sent ? <SentLinkNotice sent={sent} onDismiss={() => setSent(undefined)} /> : null}
          <section aria-labelledby="members-heading" className="grid grid-cols-1 gap-3">
            <h2 id="members-heading" className="text-lg font-semibold">
              People
            </h2>
            {members.isPending ? (
              <SkeletonRows rows={3} label="Loading members" />
            ) : !members.data ? (
              <QueryError error={members.error} retry={() => void members.refetch()} />
            ) : (
              <>
                <MembersTable members={rows} caller={self} canManage={canManage} onOffered={setSent} />
                <LoadMore list={members} />
              </>
            )}
          </section>
          <section aria-labelledby="invitations-heading" className="grid grid-cols-1 gap-3">
            <h2 id="invitations-heading" className="text-lg font-semibold">
              Pending invitations
            </h2>
            {invitations.isPending ? (
              <SkeletonRows rows={2} label="Loading invitations" />
            ) : invitations.isError ? (
              <QueryError error={invitations.error} retry={() => void invitations.refetch()} />
            ) : (
              <InvitationsTable invitations={invitations.data.data} canManage={canManage} onResent={setSent} />
            )}
          </section>
        </>
      )}
      {caller.kind === 'member' && caller.role !== 'owner' ? <LeaveCard workspace={workspace} /> : null}
    </div>
  );
}

/** The link just made, to copy and send: it is shown only here (and mailed when the service sends mail). */
function SentLinkNotice({ sent, onDismiss }: { sent: SentLink; onDismiss: () => void }) {
  const ownership = sent.kind === 'ownership';
  return (
    <Alert
      variant="success"
      title={ownership ? `Ownership offered to ${sent.email}` : `Invitation sent to ${sent.email}`}
      data-testid="sent-link"
    >
      <p>
        {ownership
          ? 'Nothing changes until they open this link, signed in, and confirm: they then become the owner and you an admin.'
          : 'They join when they open this link signed in with that email address.'}{' '}
        It is emailed to them when this service sends mail; you can also copy it and send it yourself. It works once, until{' '}
        {formatDateTime(sent.expiresAt)}.
      </p>
      <Copyable
        className="mt-2"
        value={sent.url}
        label={ownership ? 'ownership confirmation link' : 'invitation link'}
        testId={ownership ? 'ownership-link' : 'invitation-link'}
      />
      <Button className="mt-2" size="sm" variant="secondary" onClick={onDismiss}>
        Done
      </Button>
    </Alert>
  );
}

const roleText = (role: Role) => ROLE_LABEL[role];
/** "You are a billing member here." */
const ROLE_PHRASE: Record<Role, string> = {
  owner: 'the owner',
  admin: 'an admin',
  developer: 'a developer',
  billing: 'a billing member',
  viewer: 'a viewer',
};

function MembersTable({
  members,
  caller,
  canManage,
  onOffered,
}: {
  members: Member[];
  caller: RouterOutputs['members']['me'];
  canManage: boolean;
  onOffered: (sent: SentLink) => void;
}) {
  // Kept across renders, so each cell keeps its identity (a row's open dialog survives a refetch).
  const columns = useMemo(() => memberColumns(caller, canManage, onOffered), [caller, canManage, onOffered]);
  return (
    <DataTable
      columns={columns}
      data={members}
      caption="Members of this workspace"
      getRowId={(m) => m.user_id}
      empty={<EmptyState title="No members yet" />}
    />
  );
}

function memberColumns(
  caller: RouterOutputs['members']['me'],
  canManage: boolean,
  onOffered: (sent: SentLink) => void,
): ColumnDef<Member, unknown>[] {
  return [
    {
      accessorKey: 'email',
      header: 'Email',
      cell: ({ row }) => (
        <span className="flex flex-wrap items-center gap-2">
          <span className="font-medium [overflow-wrap:anywhere]">{row.original.email}</span>
          {row.original.user_id === caller.user_id ? <Badge tone="info">You</Badge> : null}
        </span>
      ),
    },
    {
      accessorKey: 'role',
      header: 'Role',
      cell: ({ row }) => <MemberRole member={row.original} editable={canManage && row.original.role !== 'owner'} />,
    },
    {
      accessorKey: 'joined_at',
      header: 'Joined',
      cell: ({ row }) => (
        <time dateTime={row.original.joined_at} title={formatDateTime(row.original.joined_at)} className="whitespace-nowrap">
          {formatDate(row.original.joined_at)}
        </time>
      ),
    },
    {
      id: 'actions',
      header: () => <span className="sr-only">Actions</span>,
      enableSorting: false,
      cell: ({ row }) =>
        row.original.role !== 'owner' && row.original.user_id !== caller.user_id && (canManage || caller.role === 'owner') ? (
          <MemberActions member={row.original} canManage={canManage} isOwner={caller.role === 'owner'} onOffered={onOffered} />
        ) : null,
    },
  ];
}

/** A member's role: a select that changes it at once for those who may, the role's name otherwise. */
function MemberRole({ member, editable }: { member: Member; editable: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorId = useId();
  const change = useMutation({
    ...trpc.members.changeRole.mutationOptions(),
    onSuccess: (updated) => {
      toast.success(`${updated.email} is now ${ROLE_PHRASE[updated.role]}.`);
      void queryClient.invalidateQueries({ queryKey: cursorPagesKey(trpc.members.list.queryKey(MEMBERS_LIST)) });
    },
  });
  if (!editable) return <span className="whitespace-nowrap">{roleText(member.role)}</span>;
  return (
    <div className="grid gap-1">
      <RoleSelect
        value={member.role}
        roles={ASSIGNABLE_ROLES}
        aria-label={`Role of ${member.email}`}
        aria-describedby={change.isError ? errorId : undefined}
        aria-invalid={change.isError || undefined}
        disabled={change.isPending}
        onChange={(role) => {
          change.reset();
          change.mutate({ user_id: member.user_id, role });
        }}
        className="h-8 w-36"
      />
      {change.isError ? (
        <p id={errorId} role="alert" className="max-w-56 text-sm font-medium text-red-700 dark:text-red-400">
          {errorMessage(change.error)}
        </p>
      ) : null}
    </div>
  );
}

function MemberActions({
  member,
  canManage,
  isOwner,
  onOffered,
}: {
  member: Member;
  canManage: boolean;
  isOwner: boolean;
  onOffered: (sent: SentLink) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.members.remove.mutationOptions());
  const offer = useMutation(trpc.members.transferOwnership.mutationOptions());
  const [removing, setRemoving] = useState(false);
  const [offering, setOffering] = useState(false);
  return (
    <div>
      <ActionMenu
        trigger={
          <Button size="sm" variant="secondary" aria-label={`Manage ${member.email}`}>
            Manage
            <ChevronDown aria-hidden="true" className="size-4" />
          </Button>
        }
      >
        {isOwner ? <ActionMenuItem onPick={() => setOffering(true)}>Make owner…</ActionMenuItem> : null}
        {canManage ? (
          <ActionMenuItem destructive onPick={() => setRemoving(true)}>
            Remove…
          </ActionMenuItem>
        ) : null}
      </ActionMenu>
      <ConfirmDialog
        open={removing}
        onOpenChange={setRemoving}
        title={`Remove ${member.email}?`}
        description="They lose access to this workspace from their next request, in the dashboard and through their sign-in tokens. The workspace's API keys are not affected. You can invite them again later."
        confirmLabel="Remove member"
        onConfirm={async () => {
          await remove.mutateAsync({ user_id: member.user_id });
          toast.success(`${member.email} was removed.`);
          await queryClient.invalidateQueries({ queryKey: cursorPagesKey(trpc.members.list.queryKey(MEMBERS_LIST)) });
        }}
      />
      <ConfirmDialog
        open={offering}
        onOpenChange={setOffering}
        title={`Offer ownership to ${member.email}?`}
        description={
          <>
            Nothing changes yet: {member.email} becomes the owner only after opening the confirmation link and accepting it, within 7 days.
            You then become an admin, and can no longer change the plan or transfer ownership. A newer offer replaces this one.
          </>
        }
        confirmLabel="Offer ownership"
        onConfirm={async () => {
          const pending = await offer.mutateAsync({ user_id: member.user_id });
          onOffered({ kind: 'ownership', email: member.email, url: pending.confirm_url, expiresAt: pending.expires_at });
        }}
      />
    </div>
  );
}

function InvitationsTable({
  invitations,
  canManage,
  onResent,
}: {
  invitations: Invitation[];
  canManage: boolean;
  onResent: (sent: SentLink) => void;
}) {
  const columns = useMemo(() => invitationColumns(canManage, onResent), [canManage, onResent]);
  return (
    <DataTable
      columns={columns}
      data={invitations}
      caption="Pending invitations"
      getRowId={(i) => i.id}
      empty={<EmptyState title="No pending invitations">Invitations wait here until they are accepted.</EmptyState>}
    />
  );
}

function invitationColumns(canManage: boolean, onResent: (sent: SentLink) => void): ColumnDef<Invitation, unknown>[] {
  return [
    { accessorKey: 'email', header: 'Email', cell: ({ row }) => <span className="[overflow-wrap:anywhere]">{row.original.email}</span> },
    { accessorKey: 'role', header: 'Role', cell: ({ row }) => roleText(row.original.role) },
    {
      accessorKey: 'status',
      header: 'Status',
      cell: ({ row }) => (row.original.status === 'pending' ? <Badge tone="info">Pending</Badge> : <Badge tone="warning">Expired</Badge>),
    },
    {
      accessorKey: 'expires_at',
      header: 'Expires',
      cell: ({ row }) => (
        <time dateTime={row.original.expires_at} title={formatDateTime(row.original.expires_at)} className="whitespace-nowrap">
          {formatDate(row.original.expires_at)}
        </time>
      ),
    },
    ...(canManage
      ? [
          {
            id: 'actions',
            header: () => <span className="sr-only">Actions</span>,
            enableSorting: false,
            cell: ({ row }) => <InvitationActions invitation={row.original} onResent={onResent} />,
          } satisfies ColumnDef<Invitation, unknown>,
        ]
      : []),
  ];
}

function InvitationActions({ invitation, onResent }: { invitation: Invitation; onResent: (sent: SentLink) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const resend = useMutation(trpc.members.resendInvitation.mutationOptions());
  const revoke = useMutation(trpc.members.revokeInvitation.mutationOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() });
  const errorId = useId();
  return (
    <div className="grid gap-1">
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          variant="secondary"
          loading={resend.isPending}
          aria-label={`Resend the invitation to ${invitation.email}`}
          aria-describedby={resend.isError ? errorId : undefined}
          onClick={() => {
            resend.reset();
            resend.mutate(
              { id: invitation.id },
              {
                onSuccess: (sent) => {
                  onResent({ kind: 'invitation', email: sent.email, url: sent.accept_url, expiresAt: sent.expires_at });
                  void refresh();
                },
              },
            );
          }}
        >
          Resend
        </Button>
        <ConfirmDialog
          trigger={
            <Button size="sm" variant="secondary" aria-label={`Revoke the invitation to ${invitation.email}`}>
              Revoke
            </Button>
          }
          title={`Revoke the invitation to ${invitation.email}?`}
          description="Its link stops working at once. You can invite them again later."
          confirmLabel="Revoke invitation"
          onConfirm={async () => {
            await revoke.mutateAsync({ id: invitation.id });
            toast.success(`The invitation to ${invitation.email} was revoked.`);
            await refresh();
          }}
        />
      </div>
      {resend.isError ? (
        <p id={errorId} role="alert" className="max-w-64 text-sm font-medium text-red-700 dark:text-red-400">
          {errorMessage(resend.error)}
        </p>
      ) : null}
    </div>
  );
}

/** Leaving the workspace (any member but the owner, who transfers ownership first). */
function LeaveCard({ workspace }: { workspace: string | undefined }) {
  const trpc = useTRPC();
  const leave = useMutation(trpc.members.leave.mutationOptions());
  const name = workspace ?? 'this workspace';
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-base">Leave {name}</CardTitle>
        <CardDescription>You lose access at once. To come back, someone who manages members must invite you again.</CardDescription>
      </CardHeader>
      <CardContent>
        <ConfirmDialog
          trigger={
            <Button variant="secondary">
              <LogOut aria-hidden="true" className="size-4" />
              Leave workspace
            </Button>
          }
          title={`Leave ${name}?`}
          description="You lose access to its keys, modules, usage and everything else at once. To come back, someone who manages members must invite you again."
          confirmLabel="Leave workspace"
          onConfirm={async () => {
            await leave.mutateAsync({});
            // Back to the default tenant (another membership, or none: the welcome page).
            forgetTenant();
            window.location.assign('/dashboard');
          }}
        />
      </CardContent>
    </Card>
  );
}
