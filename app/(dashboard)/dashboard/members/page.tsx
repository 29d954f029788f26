import type { Metadata } from 'next';
import { MembersView } from '@/components/dashboard/members/members-view';
import { requireSession } from '@/app/_lib/session';
import { callerMay, prefetchCursorPages, WithData, type Prefetcher } from '@/app/_lib/prefetch';
import { MEMBERS_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Members' };

/** The roles, and the members and invitations when the caller's role may read them (as the view asks). */
const membersQueries: Prefetcher = (p) => [
  p.queryClient.prefetchQuery(p.trpc.members.roles.queryOptions({})),
  (async () => {
    if (!(await callerMay(p, 'readMembers'))) return;
    await Promise.all([
      prefetchCursorPages(p.queryClient, p.trpc.members.list.queryKey(MEMBERS_LIST), () => p.client.members.list.query(MEMBERS_LIST)),
      p.queryClient.prefetchQuery(p.trpc.members.invitations.queryOptions({})),
    ]);
  })(),
];

export default async function MembersPage() {
  await requireSession('/dashboard/members');
  return (
    <WithData prefetch={membersQueries}>
      <MembersView />
    </WithData>
  );
}
