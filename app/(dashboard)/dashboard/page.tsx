import type { Metadata } from 'next';
import { OverviewView } from '@/components/dashboard/overview/overview-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Overview' };

export default async function OverviewPage() {
  await requireSession('/dashboard');
  return <OverviewView />;
}
