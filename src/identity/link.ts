import { and, eq, sql } from 'drizzle-orm';
import type { BearerClaims } from '../auth/bearer';
import { holdsScope } from '../contract/scopes';
import { tenantIdentities, tenants } from '../db/schema';
import { authenticateApiKey } from '../keys/authenticate';
import { AppError, conflict, insufficientScope } from '../lib/errors';
import type { Services } from '../services';
import { externalEmailConfirmed } from './external';
import { isSessionRevoked } from './sessions';
import { findUserById } from './users';

export type TenantRow = typeof tenants.$inferSelect;

/** `reason` tells a client (the dashboard) to sign in again, rather than retry; `no_tenant`, to create or link a tenant. */
export const sessionEnded = () =>
  new AppError('unauthorized', 'The session of this bearer token has ended (signed out or revoked).', { reason: 'session_ended' });

export const notLinked = () =>
  new AppError(
    'unauthorized',
    'The bearer token is valid but its user is linked to no tenant: create one with POST /api/v1/auth/register (with this bearer token), or link an existing tenant with POST /api/v1/auth/link {api_key} using a key of that tenant holding `*`.',
    { reason: 'no_tenant' },
  );

/**
 * Verifies a bearer token for an identity operation: signature and claims (svc.bearer), and, for
 * the built-in provider, that its session has not ended (sign-out, refresh-token reuse).
 */
export async function verifyIdentity(svc: Services, token: string): Promise<BearerClaims> {
  const claims = await svc.bearer.verify(token);
  if (claims.builtin && (!claims.sessionId || (await isSessionRevoked(svc, claims.sessionId)))) {
    throw sessionEnded();
  }
  return claims;
}

/**
 * The tenant an identity acts for: the one linked to (issuer, sub) in tenant_identities. Never the
 * email alone: an identity whose email is proven (an external token's top-level `email_verified`,
 * the external Supabase project's own `email_confirmed_at`, or the built-in provider's mailed
 * confirmation when SMTP_URL is set) and equals a tenant's owner_email is linked to it here, on
 * first use (docs/auth.md, Linking users to tenants). Anything else is undefined. `token` is the raw bearer token (to ask
 * an external provider); without it no external proof is sought beyond the token's claims.
 */
export async function tenantOfIdentity(svc: Services, claims: BearerClaims, token?: string): Promise<TenantRow | undefined> {
  const [linked] = await svc.db
    .select({ tenant: tenants })
    .from(tenantIdentities)
    .innerJoin(tenants, eq(tenants.id, tenantIdentities.tenantId))
    .where(and(eq(tenantIdentities.issuer, claims.issuer), eq(tenantIdentities.subject, claims.subject)))
    .limit(1);
  if (linked) return linked.tenant;
  if (!claims.email) return undefined;
  const [owned] = await svc.db
    .select()
    .from(tenants)
    .where(sql`lower(${tenants.ownerEmail}) = ${claims.email}`)
    .limit(1);
  if (!owned || !(await emailIsProven(svc, claims, token))) return undefined;
  await svc.db
    .insert(tenantIdentities)
    .values({ issuer: claims.issuer, subject: claims.subject, tenantId: owned.id, email: claims.email })
    .onConflictDoNothing();
  svc.logger.info({ tenant_id: owned.id, issuer: claims.issuer }, 'identity linked to its tenant by a verified owner email');
  return tenantOfIdentity(svc, { ...claims, email: null });
}

/**
 * Whether the identity's email is proven: an external token's top-level `email_verified` (or the
 * external provider's own confirmation), or the built-in provider's mailed confirmation (only when
 * SMTP_URL is set). Used to link an owner's tenant and to recognise operators (ADMIN_EMAILS).
 */
export async function emailIsProven(svc: Services, claims: BearerClaims, token: string | undefined): Promise<boolean> {
  if (!claims.builtin) return claims.emailVerified || (token !== undefined && (await externalEmailConfirmed(svc, token, claims.email!)));
  // The built-in provider confirms emails without mail when SMTP_URL is unset: no proof then.
  if (!svc.config.smtpUrl) return false;
  const user = await findUserById(svc.db, claims.subject);
  return Boolean(user?.emailConfirmedAt && user.confirmationSentAt && user.email.toLowerCase() === claims.email);
}

/**
 * `POST /api/v1/auth/link {api_key}`: links the bearer's identity to the tenant of a valid key
 * holding `*` (proof of ownership). Idempotent for the same tenant; 409 when the identity is
 * linked to another tenant; 403 for a key without `*`; 401 for an invalid or revoked key.
 */
export async function linkWithApiKey(svc: Services, claims: BearerClaims, apiKey: string): Promise<{ tenant_id: string }> {
  const principal = await authenticateApiKey(svc, apiKey.trim());
  if (!holdsScope(principal.scopes, '*')) throw insufficientScope('*');
  const current = await tenantOfIdentity(svc, { ...claims, email: null });
  if (current && current.id !== principal.tenantId) throw conflict('This user is already linked to another tenant.');
  if (!current) {
    await svc.db
      .insert(tenantIdentities)
      .values({ issuer: claims.issuer, subject: claims.subject, tenantId: principal.tenantId, email: claims.email ?? '' })
      .onConflictDoNothing();
    const now = await tenantOfIdentity(svc, { ...claims, email: null });
    if (now?.id !== principal.tenantId) throw conflict('This user is already linked to another tenant.');
  }
  return { tenant_id: principal.tenantId };
}
