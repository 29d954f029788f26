import type { Metadata } from 'next';
import { Suspense } from 'react';
import { UsageView } from '@/components/dashboard/usage/usage-view';
import { SkeletonRows } from '@/components/ui/skeleton';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Usage' };

export default async function UsagePage() {
  await requireSession('/dashboard/usage');
  // The view reads the cycle from the URL (useSearchParams).
  return (
    <Suspense fallback={<SkeletonRows rows={6} label="Loading usage" />}>
      <UsageView />
    </Suspense>
  );
}
