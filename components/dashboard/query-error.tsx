'use client';

import { signOut } from 'next-auth/react';
import { Link } from '@/components/ui/link';
import { isTrpcError, signInProblem } from '@/client/trpc/client';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';

/** The API's error code (the error format's `error` field, e.g. `plan_required`), when the error came from the API. */
export function errorCode(err: unknown): string | undefined {
  if (!isTrpcError(err)) return undefined;
  // tRPC errors carry the error-format body as data.app: {error: <code>, message, request_id, ...}.
  const app = (err.data as { app?: { error?: string } } | undefined)?.app;
  return typeof app?.error === 'string' ? app.error : undefined;
}

/** The API's `issues` of a refused call (`invalid_request`), each with the path of the input it concerns. */
export function apiIssues(err: unknown): { path: string; message: string }[] {
  if (!isTrpcError(err)) return [];
  const issues = (err.data as { app?: { issues?: unknown } } | undefined)?.app?.issues;
  return Array.isArray(issues) ? issues.filter((i): i is { path: string; message: string } => typeof i?.path === 'string') : [];
}

/** The message to show for a failed call: the API's `message` verbatim. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A failed query, said plainly: the API's message verbatim, a retry, and for a signed-in user
 * whose sign-in is linked to no tenant yet, the way to create one. A session whose credential no
 * longer works (e.g. an API-key session whose key was revoked or rotated without grace) gets
 * "Sign in again" instead of a retry that could never succeed.
 */
export function QueryError({ error, retry }: { error: unknown; retry?: () => void }) {
  const problem = signInProblem(error);
  if (problem === 'signed_out') {
    const signInAgain = () => {
      const back = `${window.location.pathname}${window.location.search}`;
      void signOut({ callbackUrl: `/sign-in?callbackUrl=${encodeURIComponent(back)}` });
    };
    return (
      <Alert variant="error" title="Sign in again">
        <p>{errorMessage(error)}</p>
        <p className="mt-1">This sign-in no longer works: its API key was revoked or rotated, or the session ended.</p>
        <Button className="mt-2" size="sm" variant="secondary" onClick={signInAgain}>
          Sign in again
        </Button>
      </Alert>
    );
  }
  if (problem === 'no_tenant') {
    return (
      <Alert title="No workspace yet">
        Your sign-in is not linked to a workspace yet.{' '}
        <Link className="font-medium underline" href="/welcome">
          Name your workspace
        </Link>{' '}
        to start, or link one you registered through the API on the{' '}
        <Link className="font-medium underline" href="/account">
          account page
        </Link>
        .
      </Alert>
    );
  }
  return (
    <Alert variant="error" title="Could not load this">
      <p>{errorMessage(error)}</p>
      {retry ? (
        <Button className="mt-2" size="sm" variant="secondary" onClick={retry}>
          Try again
        </Button>
      ) : null}
    </Alert>
  );
}
