import type { Metadata } from 'next';
import { MembersView } from '@/components/dashboard/members/members-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Members' };

export default async function MembersPage() {
  await requireSession('/dashboard/members');
  return <MembersView />;
}
