import { sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { BearerClaims } from '../auth/bearer';
import { holdsScope } from '../contract/scopes';
import { tenants } from '../db/schema';
import { authenticateApiKey } from '../keys/authenticate';
import { AppError, insufficientScope } from '../lib/errors';
import { addMember, findMembership, hasOwner, type Membership } from '../members/membership';
import type { Services } from '../services';
import { externalEmailConfirmed } from './external';
import { isSessionRevoked } from './sessions';
import { findUserById } from './users';

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
 * The membership an identity acts under (src/members/membership.ts): in the tenant `tenantId`
 * names (`X-Tenant-Id`), else its oldest. Never the email alone: an identity whose email is proven
 * (an external token's top-level `email_verified`, the external Supabase project's own
 * `email_confirmed_at`, or the built-in provider's mailed confirmation when SMTP_URL is set) and
 * equals the `owner_email` of a tenant that has no owner member yet becomes its owner here, on
 * first use (docs/auth.md, Linking users to tenants). Anything else is undefined. `token` is the
 * raw bearer token (to ask an external provider); without it no external proof is sought beyond
 * the token's claims.
 */
export async function membershipOfIdentity(
  svc: Services,
  claims: BearerClaims,
  token?: string,
  tenantId?: string,
): Promise<Membership | undefined> {
  const identity = { issuer: claims.issuer, subject: claims.subject };
  const member = await findMembership(svc.db, identity, tenantId);
  if (member || !claims.email) return member;
  const [owned] = await svc.db
    .select()
    .from(tenants)
    .where(sql`lower(${tenants.ownerEmail}) = ${claims.email}`)
    .limit(1);
  if (!owned || (tenantId !== undefined && owned.id !== tenantId)) return undefined;
  if ((await hasOwner(svc.db, owned.id)) || !(await emailIsProven(svc, claims, token))) return undefined;
  const email = claims.email;
  const linked = await svc.db.transaction(async (tx) => {
    if (!(await addMember(tx, owned.id, identity, email, 'owner'))) return false;
    await recordAudit(
      tx,
      owned.id,
      { action: 'tenant.linked', target: { type: 'tenant', id: owned.id }, changes: { role: 'owner', via: 'owner_email', email } },
      { type: 'user', id: identity.subject, email },
    );
    return true;
  });
  if (!linked) return undefined;
  svc.logger.info({ tenant_id: owned.id, issuer: claims.issuer }, 'identity made the owner of its tenant by a verified owner email');
  return findMembership(svc.db, identity, owned.id);
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
 * `POST /api/v1/auth/link {api_key}`: makes the bearer's identity a member of the tenant of a
 * valid key holding `*` (proof of ownership): its owner when the tenant has none yet, else an
 * admin. Idempotent: an existing membership of that tenant is kept as it is. 403 for a key
 * without `*`; 401 for an invalid or revoked key.
 */
export async function linkWithApiKey(svc: Services, claims: BearerClaims, apiKey: string): Promise<{ tenant_id: string }> {
  const principal = await authenticateApiKey(svc, apiKey.trim());
  if (!holdsScope(principal.scopes, '*')) throw insufficientScope('*');
  const identity = { issuer: claims.issuer, subject: claims.subject };
  const email = claims.email ?? '';
  if (!(await findMembership(svc.db, identity, principal.tenantId))) {
    await svc.db.transaction(async (tx) => {
      const asOwner = await addMember(tx, principal.tenantId, identity, email, 'owner');
      if (!asOwner) await addMember(tx, principal.tenantId, identity, email, 'admin');
      await recordAudit(
        tx,
        principal.tenantId,
        {
          action: 'tenant.linked',
          target: { type: 'tenant', id: principal.tenantId },
          changes: { role: asOwner ? 'owner' : 'admin', via: 'api_key', key_id: principal.keyId ?? null, email },
        },
        { type: 'user', id: identity.subject, email },
      );
    });
  }
  return { tenant_id: principal.tenantId };
}
