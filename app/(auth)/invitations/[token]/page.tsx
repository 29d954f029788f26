import type { Metadata } from 'next';
import { AcceptInvitation, SignedOutInvitation } from '@/components/invitations/accept-invitation';
import { currentSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Invitation' };

type Params = Promise<{ token: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

/**
 * An invitation's link (the API's `accept_url`), or an ownership offer's (`?transfer=1`): a
 * signed-out visitor signs in or creates an account and comes back here; a signed-in user sees
 * what the link does and accepts it.
 */
export default async function InvitationPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const { token } = await params;
  const transfer = (await searchParams).transfer === '1';
  const path = `/invitations/${encodeURIComponent(token)}${transfer ? '?transfer=1' : ''}`;
  const session = await currentSession();
  if (!session) return <SignedOutInvitation path={path} transfer={transfer} />;
  return <AcceptInvitation token={token} transfer={transfer} path={path} session={session} />;
}
