'use client';

import dynamic from 'next/dynamic';
import { useEffect, useRef, useState } from 'react';
import { SkeletonRows } from '@/components/ui/skeleton';

/**
 * The interactive reference, loaded in the browser only: Scalar renders with Vue in the client
 * and is large, so it is its own chunk that no other page downloads.
 */
const ScalarReference = dynamic(() => import('./scalar-reference'), {
  ssr: false,
  loading: () => <SkeletonRows rows={8} label="Loading the API reference" />,
});

/** How far below the screen the reference starts loading, so that it is ready when scrolled to. */
const LOAD_AHEAD = '1200px';

/** A link into the reference (Scalar's anchors: `#tag/…`, `#model/…`, `#description/…`). */
const pointsIntoReference = (hash: string) => /^#(tag|model|description|webhook)\//.test(hash);

/**
 * Scalar's reference, loaded once it comes near the screen or a link points into it (the
 * endpoint index above it, or a shared URL with its anchor); with `eager`, at once. Until then the
 * page above it stays light: Scalar takes a second or two of the browser's time to read the
 * document and draw it.
 */
export function ApiReference({ eager = false }: { eager?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const [wanted, setWanted] = useState(eager);
  useEffect(() => {
    if (wanted) return;
    if (pointsIntoReference(window.location.hash)) return setWanted(true);
    const onHash = () => pointsIntoReference(window.location.hash) && setWanted(true);
    const near = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setWanted(true), {
      rootMargin: `${LOAD_AHEAD} 0px`,
    });
    if (box.current) near.observe(box.current);
    window.addEventListener('hashchange', onHash);
    return () => {
      near.disconnect();
      window.removeEventListener('hashchange', onHash);
    };
  }, [wanted]);
  return (
    // Scalar's markup is its own (a third-party Vue app); the page's axe check excludes this root (tests/e2e/docs.spec.ts).
    <div ref={box} id="api-reference" data-testid="api-reference" className="min-h-[60vh]">
      {wanted ? (
        <ScalarReference />
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-400">The interactive reference opens here as you scroll to it.</p>
      )}
    </div>
  );
}
