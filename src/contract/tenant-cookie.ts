/**
 * The dashboard's chosen tenant, for a user who belongs to several: a cookie holding the
 * tenant's id. The API side (src/server/session.ts) turns it into `X-Tenant-Id` on dashboard
 * calls authenticated by the session cookie; the browser sets it from the tenant switcher and
 * clears it when the API answers that the user no longer belongs to that tenant.
 */
export const TENANT_COOKIE = 'amp-tenant';

const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cookie's value when it is a tenant id (a UUID); anything else is ignored. */
export function tenantFromCookie(value: string | undefined | null): string | undefined {
  const v = value?.trim();
  return v && TENANT_ID.test(v) ? v.toLowerCase() : undefined;
}

/**
 * Whether an API error message is the refusal of a tenant the caller does not belong to (404
 * `not_found` for the `X-Tenant-Id` it sent): the dashboard then forgets its chosen tenant.
 */
export function isForeignTenantRefusal(status: number | undefined, message: string): boolean {
  return status === 404 && /X-Tenant-Id/.test(message);
}
