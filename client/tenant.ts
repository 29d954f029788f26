/**
 * The dashboard's chosen tenant in the browser: the `amp-tenant` cookie (a tenant id), which
 * server.ts sends on as `X-Tenant-Id` with the session's calls (src/server/session.ts). Not a
 * secret: it only picks among the user's own memberships, which the API checks on every call.
 */
import { TENANT_COOKIE, tenantFromCookie } from '@/src/contract/tenant-cookie';

const YEAR_SECONDS = 365 * 24 * 3600;
const secure = () => (typeof location !== 'undefined' && location.protocol === 'https:' ? '; Secure' : '');

/** The tenant the cookie names, if any. */
export function chosenTenant(): string | undefined {
  if (typeof document === 'undefined') return undefined;
  const pair = document.cookie.split(';').find((c) => c.trim().startsWith(`${TENANT_COOKIE}=`));
  return tenantFromCookie(pair?.split('=')[1]);
}

/** Act for `tenantId` from the next call on. */
export function chooseTenant(tenantId: string): void {
  document.cookie = `${TENANT_COOKIE}=${encodeURIComponent(tenantId)}; Path=/; Max-Age=${YEAR_SECONDS}; SameSite=Lax${secure()}`;
}

/** Back to the default tenant (the user's oldest membership). */
export function forgetTenant(): void {
  document.cookie = `${TENANT_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax${secure()}`;
}
