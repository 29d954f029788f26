/**
 * The dashboard session on the server side of Next (server components, server actions), read
 * from the cookie without next-auth's callbacks: a server component cannot set cookies, so it
 * must never rotate the refresh token (the browser's /api/auth/session calls do, and persist it).
 * Server actions can set cookies: `freshSession()` refreshes and writes the cookie back.
 */
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { decode, encode } from 'next-auth/jwt';
import type { DashboardSessionView } from '@/client/session';
import { TENANT_COOKIE, tenantFromCookie } from '@/src/contract/tenant-cookie';
import { refreshIfNeeded, SESSION_MAX_AGE_SECONDS, sessionView, type DashboardToken } from './auth-options';
import { apiFetch, AuthApiError } from './gotrue';

const secure = () => (process.env.NEXTAUTH_URL ?? '').startsWith('https://');
/** next-auth's session cookie name (the `__Secure-` prefix over https). */
export const sessionCookieName = () => (secure() ? '__Secure-next-auth.session-token' : 'next-auth.session-token');

interface Decoded {
  raw: Record<string, unknown>;
  dashboard: DashboardToken;
}

async function readCookie(): Promise<Decoded | null> {
  const jar = await cookies();
  const name = sessionCookieName();
  const parts = jar
    .getAll()
    .filter((c) => c.name === name || c.name.startsWith(`${name}.`))
    .sort((a, b) => Number(a.name.split('.').pop()) - Number(b.name.split('.').pop()));
  const value = parts.map((c) => c.value).join('');
  if (!value) return null;
  try {
    const raw = (await decode({ token: value, secret: process.env.NEXTAUTH_SECRET ?? '' })) as Record<string, unknown> | null;
    const dashboard = raw?.dashboard as DashboardToken | undefined;
    return raw && dashboard ? { raw, dashboard } : null;
  } catch {
    return null;
  }
}

/**
 * The tenant the dashboard acts for (the `amp-tenant` cookie the tenant switcher sets), sent as
 * `X-Tenant-Id` by whatever calls the API here with the session's bearer token, as server.ts does
 * for the browser's calls (src/server/session.ts). Undefined: the user's default tenant.
 */
export async function chosenTenant(): Promise<string | undefined> {
  return tenantFromCookie((await cookies()).get(TENANT_COOKIE)?.value);
}

/** The signed-in user as pages show it, or null. */
export async function currentSession(): Promise<DashboardSessionView | null> {
  const decoded = await readCookie();
  if (!decoded || decoded.dashboard.error) return null;
  return sessionView(decoded.dashboard);
}

/** For dashboard pages: the session, or a redirect to the sign-in page that comes back to `path`. */
export async function requireSession(path: string): Promise<DashboardSessionView> {
  const session = await currentSession();
  if (!session) redirect(`/sign-in?callbackUrl=${encodeURIComponent(path)}`);
  return session;
}

/**
 * For server actions: the session token with a usable access token, refreshed and written back
 * to the cookie when it was about to expire; null when signed out.
 */
export async function freshSession(): Promise<DashboardToken | null> {
  const decoded = await readCookie();
  if (!decoded || decoded.dashboard.error) return null;
  const dashboard = await refreshIfNeeded(decoded.dashboard);
  if (dashboard !== decoded.dashboard) {
    const value = await encode({
      token: { ...decoded.raw, dashboard },
      secret: process.env.NEXTAUTH_SECRET ?? '',
      maxAge: SESSION_MAX_AGE_SECONDS,
    });
    (await cookies()).set(sessionCookieName(), value, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: secure(),
      maxAge: SESSION_MAX_AGE_SECONDS,
    });
  }
  return dashboard.error ? null : dashboard;
}

/**
 * Whether the signed-in user has a tenant, for pages that send a user without one elsewhere: an
 * API-key session always has one; a password session's access token asks the API. `unknown` when
 * a server component cannot tell (an access token about to expire, which only the browser or a
 * server action refreshes; the API unreachable): the page then renders as usual.
 */
export async function tenantLinked(): Promise<'linked' | 'none' | 'unknown'> {
  const decoded = await readCookie();
  const token = decoded?.dashboard;
  if (!token || token.error) return 'unknown';
  if (token.kind === 'api_key') return 'linked';
  if (!token.accessToken || (token.expiresAt ?? 0) - 30 < Date.now() / 1000) return 'unknown';
  const tenant = await chosenTenant();
  try {
    await apiFetch('/api/v1/me', { bearer: token.accessToken, tenant });
    return 'linked';
  } catch (err) {
    // A chosen tenant the user no longer belongs to (404): its default tenant decides; the
    // browser clears the cookie on its first call (client/trpc/react.tsx).
    if (tenant && err instanceof AuthApiError && err.status === 404) return tenantLinkedByDefault(token.accessToken);
    return err instanceof AuthApiError && err.reason === 'no_tenant' ? 'none' : 'unknown';
  }
}

async function tenantLinkedByDefault(accessToken: string): Promise<'linked' | 'none' | 'unknown'> {
  try {
    await apiFetch('/api/v1/me', { bearer: accessToken });
    return 'linked';
  } catch (err) {
    return err instanceof AuthApiError && err.reason === 'no_tenant' ? 'none' : 'unknown';
  }
}
