import type { Metadata } from 'next';
import { InvitationView } from '@/components/invitations/accept-invitation';
import { currentSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Invitation' };

type Params = Promise<{ token: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

/**
 * An invitation's link (the API's `accept_url`), or an ownership offer's (`?transfer=1`): who
 * invited whom to which workspace with which role (the link's lookup); a signed-out visitor signs
 * in or creates an account and comes back here; a signed-in user accepts it. A used, expired or
 * revoked link says so with what to do.
 */
export default async function InvitationPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const { token } = await params;
  const transfer = (await searchParams).transfer === '1';
  const path = `/invitations/${encodeURIComponent(token)}${transfer ? '?transfer=1' : ''}`;
  const session = await currentSession();
  return <InvitationView token={token} transfer={transfer} path={path} session={session} />;
}
