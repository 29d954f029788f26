'use client';

import Link from 'next/link';
import { isTrpcError, statusOf } from '../../app/_lib/trpc';
import { Alert } from '../ui/alert';
import { Button } from '../ui/button';

/** The API's error code (the error format's `error.code`), when the error came from the API. */
export function errorCode(err: unknown): string | undefined {
  if (!isTrpcError(err)) return undefined;
  const app = (err.data as { app?: { error?: { code?: string } } } | undefined)?.app;
  return app?.error?.code;
}

/** The message to show for a failed call: the API's `message` verbatim. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A failed query, said plainly: the API's message verbatim, a retry, and for a signed-in user
 * whose sign-in is linked to no tenant yet, the way to create one.
 */
export function QueryError({ error, retry }: { error: unknown; retry?: () => void }) {
  if (statusOf(error) === 401 && /register|link/i.test(errorMessage(error))) {
    return (
      <Alert title="No tenant yet">
        Your sign-in is not linked to a tenant. Create one (or link an existing one with its API key) on the{' '}
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
