'use client';

import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';
import { useEffect, useState } from 'react';
import { SkeletonRows } from '@/components/ui/skeleton';
import { withResponseWording } from './response-wording';

const DOCUMENT_URL = '/api/openapi.json';

/**
 * Scalar's API reference over the service's generated OpenAPI document (loaded only on /docs),
 * with each operation's own wording of its shared error responses (./response-wording.ts). Should
 * the document not load here, Scalar fetches it itself.
 */
export default function ScalarReference() {
  const [source, setSource] = useState<{ content: Record<string, unknown> } | { url: string }>();
  useEffect(() => {
    let live = true;
    fetch(DOCUMENT_URL)
      .then((res) => (res.ok ? (res.json() as Promise<Record<string, unknown>>) : Promise.reject(new Error(String(res.status)))))
      .then(
        (doc) => live && setSource({ content: withResponseWording(doc) }),
        () => live && setSource({ url: DOCUMENT_URL }),
      );
    return () => {
      live = false;
    };
  }, []);
  if (!source) return <SkeletonRows rows={8} label="Loading the API reference" />;
  return (
    <ApiReferenceReact
      configuration={{
        ...source,
        // No button that sends the document's URL to Scalar's hosted client.
        hideClientButton: true,
        // The page's own header and layout surround it; the reference follows the system's colour
        // scheme like the page around it (no toggle of its own that would switch only the reference).
        withDefaultFonts: false,
        hideDarkModeToggle: true,
        metaData: { title: 'API reference · Agent Module Platform' },
        // Nothing of Scalar's hosted services: its agent chat ("Ask AI", which fetched its registry
        // through proxy.scalar.com), developer tools and telemetry stay off; the page
        // makes no request off this origin.
        agent: { disabled: true },
        showDeveloperTools: 'never',
        telemetry: false,
      }}
    />
  );
}
