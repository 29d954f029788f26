'use client';

import { createTRPCClient, httpLink } from '@trpc/client';
import { signOut } from 'next-auth/react';
import { Link } from '@/components/ui/link';
import { useEffect, useState, type ReactNode } from 'react';
import type { DashboardSessionView } from '@/client/session';
import { chooseTenant } from '@/client/tenant';
import { isTrpcError, statusOf, trpc, withSessionRetry } from '@/client/trpc/client';
import type { AppRouter } from '@/src/server/router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { SkeletonRows } from '@/components/ui/skeleton';
import type { RouterOutputs } from '@/client/trpc/types';
import { ROLE_DEFINITIONS, type Role } from '@/src/contract/roles';

const linkClass = 'font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300';

/** A signed-out visitor: sign in, or create an account, and come back to this link. */
export function SignedOutInvitation({ path, transfer, details }: { path: string; transfer: boolean; details?: Lookup }) {
  const back = encodeURIComponent(path);
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">
          {transfer ? 'You have been offered ownership of a workspace' : 'You have been invited to a workspace'}
        </CardTitle>
        <CardDescription>
          {transfer
            ? 'Sign in as the member the offer was sent to, then confirm it.'
            : details
              ? `Sign in as ${details.email}, then accept it. New here? Create an account with that address first.`
              : 'Sign in with the email address the invitation was sent to, then accept it. New here? Create an account with that address first.'}
        </CardDescription>
      </CardHeader>
      {details ? (
        <CardContent>
          <InvitationDetails details={details} />
        </CardContent>
      ) : null}
      <CardContent className="flex flex-wrap gap-3">
        <Button asChild>
          <Link href={`/sign-in?callbackUrl=${back}`}>Sign in to accept</Link>
        </Button>
        {transfer ? null : (
          <Button asChild variant="secondary">
            <Link href={`/sign-up?callbackUrl=${back}`}>Create an account</Link>
          </Button>
        )}
      </CardContent>
      <CardFooter>
        <span className="text-slate-700 dark:text-slate-300">You come back to this page once you are signed in.</span>
      </CardFooter>
    </Card>
  );
}

interface Problem {
  title: string;
  body: ReactNode;
  /** A way out: signing in as someone else, say. */
  action?: ReactNode;
}

const reasonOf = (err: unknown): string | undefined => {
  if (!isTrpcError(err)) return undefined;
  const reason = (err.data as { app?: { reason?: unknown } } | undefined)?.app?.reason;
  return typeof reason === 'string' ? reason : undefined;
};

/** A refused accept, in plain words with what to do next; the API's own message is kept in each. */
function explain(err: unknown, transfer: boolean, switchAccount: ReactNode): Problem {
  const message = err instanceof Error ? err.message : String(err);
  const status = statusOf(err);
  const reason = reasonOf(err);
  const dashboard = (
    <Link className={linkClass} href="/dashboard">
      Go to the dashboard
    </Link>
  );
  const askAgain = transfer
    ? 'Ask the owner to offer it to you again: a new offer comes with a new link.'
    : 'Ask the person who invited you to send it again: they can resend it from their Members page, with a new link.';
  if (reason === 'email_mismatch') return { title: 'This invitation is for another email address', body: message, action: switchAccount };
  if (reason === 'email_unconfirmed')
    return {
      title: 'Confirm your email address first',
      body: 'Open the confirmation link we emailed you when you created your account, then come back to this page and accept again.',
    };
  if (reason === 'not_addressee')
    return {
      title: 'This offer is for another member',
      body: 'Ownership offers work only for the member they were made out to. Sign in as that member to confirm it.',
      action: switchAccount,
    };
  if (reason === 'invitation_used')
    return {
      title: transfer ? 'This offer has already been used' : 'This invitation has already been used',
      body: transfer
        ? 'If you confirmed it, you already own the workspace.'
        : `Each link works once. If you accepted it, the workspace is already in your dashboard. If not, ${askAgain.charAt(0).toLowerCase()}${askAgain.slice(1)}`,
      action: dashboard,
    };
  if (reason === 'invitation_expired')
    return { title: transfer ? 'This offer has expired' : 'This invitation has expired', body: `Links work for 7 days. ${askAgain}` };
  if (status === 404)
    return {
      title: transfer ? 'No such offer' : 'No such invitation',
      body: `This link does not work: it was revoked, replaced by a newer one, or mistyped. ${askAgain}`,
    };
  if (status === 409) return { title: 'Nothing to accept', body: message, action: dashboard };
  if (status === 401)
    return {
      title: transfer ? 'You are not a member of any workspace' : 'Sign in again',
      body: message,
      action: switchAccount,
    };
  return { title: 'That did not work', body: message };
}

/** The ownership offer is for one of the user's tenants: it names none, so each is tried (the API answers `not_addressee` for the others). */
async function acceptOwnershipInSomeTenant(token: string) {
  const me = await withSessionRetry(() => trpc.members.me.query({}));
  const order = [me.tenant_id, ...me.memberships.map((m) => m.tenant_id).filter((id) => id !== me.tenant_id)];
  let refusal: unknown;
  for (const tenantId of order) {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: '/api/trpc', headers: { 'x-tenant-id': tenantId } })] });
    try {
      return await withSessionRetry(() => client.members.acceptOwnership.mutate({ token }));
    } catch (err) {
      if (reasonOf(err) !== 'not_addressee') throw err;
      refusal = err;
    }
  }
  throw refusal;
}

/**
 * A signed-in user's view of the link: what accepting does, and the button. A join calls
 * `members.acceptInvitation` (the user needs no tenant yet); an ownership offer
 * `members.acceptOwnership` in the tenant it belongs to. Success chooses that tenant (the tenant
 * cookie) and opens the dashboard; a refusal is explained with what to do.
 */
export function AcceptInvitation({
  token,
  transfer,
  path,
  session,
  details,
}: {
  token: string;
  transfer: boolean;
  path: string;
  session: DashboardSessionView;
  details?: Lookup;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const switchAccount = (
    <Button
      variant="secondary"
      size="sm"
      onClick={() =>
        void signOut({ redirect: false }).then(() => window.location.assign(`/sign-in?callbackUrl=${encodeURIComponent(path)}`))
      }
    >
      Sign in with another account
    </Button>
  );

  if (session.kind === 'api_key')
    return (
      <Card>
        <CardHeader>
          <CardTitle as="h1">Sign in with your own account</CardTitle>
          <CardDescription>
            You are signed in with an API key, which belongs to a workspace rather than to a person. Invitations are accepted by a person:
            sign in with your email address and password.
          </CardDescription>
        </CardHeader>
        <CardContent>{switchAccount}</CardContent>
      </Card>
    );

  // The API refuses another account's accept (email_mismatch): said before the click, not after.
  const otherEmail = Boolean(!transfer && details && session.email && details.email.toLowerCase() !== session.email.toLowerCase());

  const accept = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      const tenantId = transfer
        ? (await acceptOwnershipInSomeTenant(token)).tenant_id
        : (await withSessionRetry(() => trpc.members.acceptInvitation.mutate({ token }))).tenant_id;
      chooseTenant(tenantId);
      window.location.assign('/dashboard');
    } catch (err) {
      setProblem(explain(err, transfer, switchAccount));
      setBusy(false);
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">{transfer ? 'Become the owner of this workspace' : 'Join a workspace'}</CardTitle>
        <CardDescription>
          {transfer ? (
            <>
              The owner of a workspace you belong to offers it to you. Confirming makes you its owner, able to change its plan and transfer
              it again; the current owner becomes an admin.
            </>
          ) : (
            <>
              Someone invited you to work with them in their workspace, with the role they chose. Accepting adds your account to it; you can
              switch between your workspaces from the dashboard&apos;s menu, and leave one from its Members page.
            </>
          )}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {details ? <InvitationDetails details={details} /> : null}
        <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="accept-signed-in-as">
          Signed in as <span className="font-medium">{session.email}</span>.{' '}
          {transfer
            ? 'The offer works only for the member it was made out to.'
            : 'The invitation works only for the address it was sent to.'}
        </p>
        {otherEmail ? (
          <Alert
            variant="error"
            title="This invitation is for another email address"
            id="accept-other-email"
            data-testid="accept-other-email"
          >
            <p>
              It was sent to {details!.email}, and you are signed in as {session.email}. Sign in with the account of that address to accept
              it.
            </p>
            <div className="mt-2">{switchAccount}</div>
          </Alert>
        ) : null}
        {problem ? (
          <Alert variant="error" title={problem.title} data-testid="accept-problem">
            <p>{problem.body}</p>
            {problem.action ? <div className="mt-2">{problem.action}</div> : null}
          </Alert>
        ) : null}
        <div className="flex flex-wrap gap-3">
          <Button
            onClick={() => void accept()}
            loading={busy}
            disabled={otherEmail}
            aria-describedby={otherEmail ? 'accept-other-email' : undefined}
          >
            {transfer ? 'Accept ownership' : 'Accept invitation'}
          </Button>
          <Button asChild variant="secondary">
            <Link href="/dashboard">Not now</Link>
          </Button>
        </div>
      </CardContent>
    </Card>
  );
}

type Lookup = RouterOutputs['members']['lookupInvitation'];

const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', admin: 'Admin', developer: 'Developer', billing: 'Billing', viewer: 'Viewer' };
const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'long' });

/** Who invited whom to which workspace, with which role, until when: the link's lookup (members.lookupInvitation). */
function InvitationDetails({ details }: { details: Lookup }) {
  const ownership = details.kind === 'ownership_transfer';
  return (
    <dl
      className="grid grid-cols-1 gap-x-4 gap-y-1 rounded-lg border border-slate-200 p-3 text-sm sm:grid-cols-[7rem_1fr] dark:border-slate-800"
      data-testid="invitation-details"
    >
      <dt className="text-slate-600 dark:text-slate-400">Workspace</dt>
      <dd className="font-medium break-words" data-testid="invitation-workspace">
        {details.tenant_name}
      </dd>
      <dt className="text-slate-600 dark:text-slate-400">{ownership ? 'Offered by' : 'Invited by'}</dt>
      <dd className="wrap-anywhere" data-testid="invitation-inviter">
        {details.invited_by ?? (ownership ? 'The owner' : 'The workspace, not a named person')}
      </dd>
      <dt className="text-slate-600 dark:text-slate-400">{ownership ? 'You become' : 'Your role'}</dt>
      <dd data-testid="invitation-role">
        <span className="font-medium">{ROLE_NAMES[details.role]}</span>
        <span className="block text-slate-600 dark:text-slate-400">{ROLE_DEFINITIONS[details.role].description}</span>
      </dd>
      <dt className="text-slate-600 dark:text-slate-400">For</dt>
      <dd className="wrap-anywhere">{details.email}</dd>
      <dt className="text-slate-600 dark:text-slate-400">Link works until</dt>
      <dd>{day(details.expires_at)}</dd>
    </dl>
  );
}

/** A link that cannot be accepted any more, said plainly with what to do: used, expired, or revoked or unknown (404). */
function InvitationClosed({
  state,
  transfer,
  details,
  signedIn,
}: {
  state: 'used' | 'expired' | 'gone';
  transfer: boolean;
  details?: Lookup;
  signedIn: boolean;
}) {
  const what = transfer ? 'offer' : 'invitation';
  const who = details?.invited_by ?? (transfer ? 'the owner' : 'the person who invited you');
  const askAgain = transfer
    ? `Ask ${who} to offer it to you again from the Members page: a new offer comes with a new link.`
    : `Ask ${who} to send it again: they can resend it from the Members page of ${details?.tenant_name ?? 'their workspace'}, which gives you a new link.`;
  const title =
    state === 'used'
      ? `This ${what} has already been used`
      : state === 'expired'
        ? `This ${what} has expired`
        : `This ${what} link no longer works`;
  const body =
    state === 'used'
      ? transfer
        ? 'Each link works once. If you confirmed it, you already own the workspace.'
        : `Each link works once. If you accepted it, ${details?.tenant_name ?? 'the workspace'} is already in your dashboard. If not, ${askAgain.charAt(0).toLowerCase()}${askAgain.slice(1)}`
      : state === 'expired'
        ? `Links work for 7 days; this one ended on ${details ? day(details.expires_at) : 'its seventh day'}. ${askAgain}`
        : `It was revoked, replaced by a newer one, or mistyped. ${askAgain}`;
  return (
    <Card data-testid="invitation-closed" data-state={state}>
      <CardHeader>
        <CardTitle as="h1">{title}</CardTitle>
        <CardDescription>{body}</CardDescription>
      </CardHeader>
      {details && state !== 'gone' ? (
        <CardContent>
          <InvitationDetails details={details} />
        </CardContent>
      ) : null}
      <CardFooter className="flex flex-wrap gap-3">
        {signedIn ? (
          <Link className={linkClass} href="/dashboard">
            Go to the dashboard
          </Link>
        ) : (
          <Link className={linkClass} href="/sign-in">
            Sign in
          </Link>
        )}
      </CardFooter>
    </Card>
  );
}

type LookupState = { state: 'loading' } | { state: 'found'; details: Lookup } | { state: 'gone' } | { state: 'unknown' };

/**
 * The page an invitation (or ownership offer) link opens: the link is looked up first
 * (`members.lookupInvitation`, public: the token is the credential), so the person sees who invited
 * them to which workspace, with which role, before signing in or accepting. A used, expired,
 * revoked or unknown link says so with what to do; a lookup that fails otherwise (the network)
 * leaves the accept flow as it was, and the API still decides.
 */
export function InvitationView({
  token,
  transfer,
  path,
  session,
}: {
  token: string;
  transfer: boolean;
  path: string;
  session: DashboardSessionView | null;
}) {
  const [lookup, setLookup] = useState<LookupState>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    trpc.members.lookupInvitation
      .query({ token })
      .then((details) => live && setLookup({ state: 'found', details }))
      .catch((err: unknown) => live && setLookup(statusOf(err) === 404 ? { state: 'gone' } : { state: 'unknown' }));
    return () => {
      live = false;
    };
  }, [token]);

  if (lookup.state === 'loading')
    return (
      <Card>
        <CardHeader>
          <CardTitle as="h1">{transfer ? 'An ownership offer' : 'An invitation'}</CardTitle>
        </CardHeader>
        <CardContent>
          <SkeletonRows rows={3} label="Reading the invitation" />
        </CardContent>
      </Card>
    );
  if (lookup.state === 'gone') return <InvitationClosed state="gone" transfer={transfer} signedIn={Boolean(session)} />;
  const details = lookup.state === 'found' ? lookup.details : undefined;
  if (details && details.status !== 'pending')
    return <InvitationClosed state={details.status} transfer={transfer} details={details} signedIn={Boolean(session)} />;
  if (!session) return <SignedOutInvitation path={path} transfer={transfer} details={details} />;
  return <AcceptInvitation token={token} transfer={transfer} path={path} session={session} details={details} />;
}
