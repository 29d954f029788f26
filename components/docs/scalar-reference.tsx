'use client';

import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';

/** Scalar's API reference over the service's generated OpenAPI document (loaded only on /docs). */
export default function ScalarReference() {
  return (
    <ApiReferenceReact
      configuration={{
        url: '/api/openapi.json',
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
