'use client';

import { createTRPCClient, httpLink } from '@trpc/client';
import { signOut } from 'next-auth/react';
import Link from 'next/link';
import { useState, type ReactNode } from 'react';
import type { DashboardSessionView } from '@/client/session';
import { chooseTenant } from '@/client/tenant';
import { isTrpcError, statusOf, trpc, withSessionRetry } from '@/client/trpc/client';
import type { AppRouter } from '@/src/server/router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';

const linkClass = 'font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300';

/** A signed-out visitor: sign in, or create an account, and come back to this link. */
export function SignedOutInvitation({ path, transfer }: { path: string; transfer: boolean }) {
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
            : 'Sign in with the email address the invitation was sent to, then accept it. New here? Create an account with that address first.'}
        </CardDescription>
      </CardHeader>
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
}: {
  token: string;
  transfer: boolean;
  path: string;
  session: DashboardSessionView;
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
        <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="accept-signed-in-as">
          Signed in as <span className="font-medium">{session.email}</span>.{' '}
          {transfer
            ? 'The offer works only for the member it was made out to.'
            : 'The invitation works only for the address it was sent to.'}
        </p>
        {problem ? (
          <Alert variant="error" title={problem.title} data-testid="accept-problem">
            <p>{problem.body}</p>
            {problem.action ? <div className="mt-2">{problem.action}</div> : null}
          </Alert>
        ) : null}
        <div className="flex flex-wrap gap-3">
          <Button onClick={() => void accept()} loading={busy}>
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
