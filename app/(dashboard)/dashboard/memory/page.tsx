import type { Metadata } from 'next';
import { Suspense } from 'react';
import { MemoryView } from '@/components/dashboard/memory/memory-view';
import { SkeletonRows } from '@/components/ui/skeleton';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Memory' };

export default async function MemoryPage() {
  await requireSession('/dashboard/memory');
  // The view reads its agent and query from the URL (useSearchParams).
  return (
    <Suspense fallback={<SkeletonRows rows={4} label="Loading" />}>
      <MemoryView />
    </Suspense>
  );
}
