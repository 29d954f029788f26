'use client';

import dynamic from 'next/dynamic';
import { SkeletonRows } from '@/components/ui/skeleton';

/**
 * The interactive reference, loaded in the browser only: Scalar renders with Vue in the client
 * and is large, so it is its own chunk that no other page downloads.
 */
const ScalarReference = dynamic(() => import('./scalar-reference'), {
  ssr: false,
  loading: () => <SkeletonRows rows={8} label="Loading the API reference" />,
});

export function ApiReference() {
  return (
    // Scalar's markup is its own (a third-party Vue app); the page's axe check excludes this root (tests/e2e/docs.spec.ts).
    <div id="api-reference" data-testid="api-reference" className="min-h-[60vh]">
      <ScalarReference />
    </div>
  );
}
