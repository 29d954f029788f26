import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ExecutionsView } from '@/components/dashboard/executions/executions-view';
import { SkeletonRows } from '@/components/ui/skeleton';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Executions' };

export default async function ExecutionsPage() {
  await requireSession('/dashboard/executions');
  // The view reads its search and filters from the URL (useSearchParams).
  return (
    <Suspense fallback={<SkeletonRows rows={6} label="Loading executions" />}>
      <ExecutionsView />
    </Suspense>
  );
}
