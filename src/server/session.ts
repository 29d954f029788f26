/**
 * Dashboard sessions on the API side: server.ts authenticates /api/trpc calls that carry no
 * x-api-key or Authorization from next-auth's session cookie (JWT, encrypted with
 * SESSION_SECRET; `getToken` from next-auth/jwt). A password session acts as its identity
 * provider's bearer token and an API-key session as its key: the same authentication as REST,
 * so a revoked key or an ended provider session stops the dashboard at once. A state-changing
 * call (a mutation, POST) from a cookie session must come from the service's own origin (CSRF).
 * A password session's user may belong to several tenants: the one chosen in the dashboard
 * (the `amp-tenant` cookie, src/contract/tenant-cookie.ts) is sent on as `X-Tenant-Id` unless the
 * request names one itself.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { getToken } from 'next-auth/jwt';
import type { Config } from '../config';
import { TENANT_COOKIE, tenantFromCookie } from '../contract/tenant-cookie';
import { AppError } from '../lib/errors';
import { hasCredential, header } from './admission';

/** What the session JWT carries (written by app/_lib/auth-options.ts). */
interface DashboardToken {
  kind?: 'password' | 'api_key';
  accessToken?: string;
  apiKey?: string;
  error?: string;
}

/** next-auth's session cookie name: `__Secure-` prefixed when the service is served over https. */
export function sessionCookieName(config: Pick<Config, 'publicBaseUrl'>): string {
  return isSecure(config) ? '__Secure-next-auth.session-token' : 'next-auth.session-token';
}

const isSecure = (config: Pick<Config, 'publicBaseUrl'>) => config.publicBaseUrl.startsWith('https://');

function parseCookies(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header(headers, 'cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
}

/**
 * The request's headers with the dashboard session's credential added (Authorization: Bearer
 * for a password session, x-api-key for an API-key session), or undefined when the request
 * carries its own credential or no usable session cookie. A password session also gets
 * `x-tenant-id` from the tenant cookie when the request names no tenant itself (a tenant the
 * user does not belong to is then the API's 404, which the dashboard answers by clearing the
 * cookie); an API key belongs to one tenant and gets none.
 */
export async function sessionHeaders(
  headers: IncomingHttpHeaders,
  config: Pick<Config, 'publicBaseUrl' | 'sessionSecret'>,
): Promise<IncomingHttpHeaders | undefined> {
  if (hasCredential(headers)) return undefined;
  const cookies = parseCookies(headers);
  const name = sessionCookieName(config);
  if (!Object.keys(cookies).some((c) => c === name || c.startsWith(`${name}.`))) return undefined;
  // getToken reads the cookie (chunks included) and falls back to an Authorization header, which this request has not.
  const token = await getToken({
    req: { cookies, headers: {} } as never,
    secret: config.sessionSecret,
    secureCookie: isSecure(config),
    logger: silentLogger,
  });
  const dashboard = (token as { dashboard?: DashboardToken } | null)?.dashboard;
  if (!dashboard || dashboard.error) return undefined;
  if (dashboard.kind === 'password' && dashboard.accessToken) {
    const chosen = header(headers, 'x-tenant-id') ? undefined : tenantFromCookie(cookies[TENANT_COOKIE]);
    return { ...headers, authorization: `Bearer ${dashboard.accessToken}`, ...(chosen ? { 'x-tenant-id': chosen } : {}) };
  }
  if (dashboard.kind === 'api_key' && dashboard.apiKey) return { ...headers, 'x-api-key': dashboard.apiKey };
  return undefined;
}

/**
 * CSRF: a state-changing call authenticated by the cookie must come from the service's own
 * origin: `Origin` (browsers send it on every POST) is the public base URL's origin, or names the
 * host the request was sent to (the dashboard opened at another address of this server, e.g.
 * 127.0.0.1 instead of localhost; the cookie belongs to that host, so a rebinding page has none).
 */
export function isSameOrigin(req: Pick<IncomingMessage, 'headers'>, config: Pick<Config, 'publicBaseUrl'>): boolean {
  const origin = header(req.headers, 'origin');
  if (!origin || origin === 'null') return false;
  if (origin === new URL(config.publicBaseUrl).origin) return true;
  try {
    const host = header(req.headers, 'host');
    return Boolean(host) && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The 403 a cross-site state-changing call with the session cookie gets. */
export const crossSiteRefusal = () =>
  new AppError(
    'forbidden',
    'A state-changing call with the dashboard session cookie must come from the dashboard itself (its Origin header does not match): refused as cross-site request forgery.',
  );

/**
 * The dashboard's server code (next-auth, server actions) calls the API and the identity
 * provider on loopback: without more, every sign-in attempt and registration would count against
 * 127.0.0.1's limits, one pool for all users. So the request handler sets CLIENT_IP_HEADER on
 * each request it hands to Next (overwriting whatever the client sent), the dashboard forwards
 * it with FORWARD_TOKEN_HEADER, and the API takes it as the client's address only with this
 * process's token (`dashboardForwardToken()`, handed to Next by server.ts). Never enabled
 * without Next.
 */
export const CLIENT_IP_HEADER = 'x-amp-client-ip';
export const FORWARD_TOKEN_HEADER = 'x-amp-dashboard-token';
let forwardToken: Buffer | undefined;

export function dashboardForwardToken(): string {
  forwardToken ??= Buffer.from(randomBytes(24).toString('base64url'));
  return forwardToken.toString();
}

/** The client a dashboard call acts for, when the call proves it comes from the dashboard; else undefined. */
export function forwardedClientIp(headers: IncomingHttpHeaders): string | undefined {
  const given = header(headers, FORWARD_TOKEN_HEADER);
  if (!forwardToken || !given) return undefined;
  const a = Buffer.from(given);
  if (a.length !== forwardToken.length || !timingSafeEqual(a, forwardToken)) return undefined;
  const ip = header(headers, CLIENT_IP_HEADER)?.trim();
  return ip && ip.length <= 64 ? ip : undefined;
}

const silentLogger = { error: () => {}, warn: () => {}, debug: () => {} } as never;
