/**
 * The browser security headers of every response (docs/decisions.md, "Security headers"), built
 * once per configuration: the request handler sets them before it dispatches (or, on a REST
 * route, writes them in the answer's one header object), so no answer can leave without them.
 * The pages' Content-Security-Policy, which needs a nonce per request, is proxy.ts's.
 */
import type { ServerResponse } from 'node:http';
import type { Config } from '../../config';
import { OAUTH_MOUNT } from '../oauth/endpoints';

export type HeaderSet = Readonly<Record<string, string>>;

export interface SecurityHeaders {
  /** API answers: JSON, text, event streams, errors, discovery documents. */
  api: HeaderSet;
  /** Under /oauth/: oidc-provider's HTML pages (its error page and the form_post page). */
  oauth: HeaderSet;
  /** Pages, assets and next-auth's routes (Next): the same, less the CSP that proxy.ts sets. */
  page: HeaderSet;
}

/** Two years, the preload list's figure; sent only when the service is reached over https. */
const HSTS = 'max-age=63072000; includeSubDomains';

/** An API answer is data: it loads nothing, runs nothing and is shown in no frame. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * oidc-provider's form_post page submits its form with one inline script, and appends that
 * script's hash to script-src when the policy has one (a browser ignores 'none' beside a hash).
 * form-action stays open: the form posts to the client's redirect URI, on any origin.
 */
const OAUTH_CSP = "default-src 'none'; script-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const built = new WeakMap<Pick<Config, 'publicBaseUrl'>, SecurityHeaders>();

export function securityHeaders(config: Pick<Config, 'publicBaseUrl'>): SecurityHeaders {
  let headers = built.get(config);
  if (!headers) {
    const common = {
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      ...(config.publicBaseUrl.startsWith('https://') ? { 'Strict-Transport-Security': HSTS } : {}),
    };
    headers = {
      api: { ...common, 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': API_CSP },
      oauth: { ...common, 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': OAUTH_CSP },
      // Not no-referrer: under it a browser sends `Origin: null` on the dashboard's own POSTs,
      // which the cross-site checks (src/server/session.ts, Next's server actions) refuse.
      page: { ...common, 'Referrer-Policy': 'strict-origin-when-cross-origin' },
    };
    built.set(config, headers);
  }
  return headers;
}

/** The set for an API path: the OAuth variant under /oauth/. */
export function apiHeadersFor(headers: SecurityHeaders, pathname: string): HeaderSet {
  return pathname.startsWith(`${OAUTH_MOUNT}/`) ? headers.oauth : headers.api;
}

export function setHeaders(res: ServerResponse, headers: HeaderSet): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}
