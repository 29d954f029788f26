/**
 * The pages' Content-Security-Policy, with a fresh nonce per request (docs/dashboard.md,
 * "Security headers"). Next reads the nonce from the request's Content-Security-Policy header
 * and puts it on every script it renders (its runtime, the page's chunks, the inline flight
 * data), so no script needs 'unsafe-inline'; 'strict-dynamic' lets those scripts load the
 * chunks they import. Every page renders per request (the root layout reads the session), as a
 * nonce requires. The headers every response of the service carries (nosniff, frame denial,
 * referrer policy, HSTS) are server.ts's (src/server/http/security-headers.ts).
 */
import { NextResponse, type NextRequest } from 'next/server';

/** React's development build evaluates code for its error overlays; production never does. */
const DEV = process.env.NODE_ENV === 'development';

function pageCsp(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${DEV ? " 'unsafe-eval'" : ''}`,
    // React sets style attributes (Radix positions its popovers with them, Scalar injects its
    // theme), and a nonce cannot cover an attribute: inline styles stay allowed. Styles run no code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function proxy(request: NextRequest) {
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(18))));
  const csp = pageCsp(nonce);
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

export const config = {
  // Built files carry no markup; a prefetch's answer is merged into a page that has its own nonce.
  matcher: [
    {
      source: '/((?!_next/static|_next/image|icon.svg|favicon.ico).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
