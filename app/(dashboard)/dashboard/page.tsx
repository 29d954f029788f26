import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { OverviewView } from '@/components/dashboard/overview/overview-view';
import { requireSession, tenantLinked } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Overview' };

/** The landing page: a user with no workspace yet names one first; an operator without one lands on Admin. */
export default async function OverviewPage() {
  const session = await requireSession('/dashboard');
  if (session.kind === 'password' && (await tenantLinked()) === 'none') redirect(session.admin ? '/dashboard/admin' : '/welcome');
  return <OverviewView />;
}
