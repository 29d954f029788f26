/**
 * `/api/mcp` as an OAuth 2.1 protected resource (MCP authorization; RFC 9728, RFC 6750):
 * its metadata document, the `WWW-Authenticate` challenges, and the verification of the access
 * tokens the authorization server (src/server/oauth/provider.ts) issues for it and for the REST
 * API (`/api/v1`, the resource of a native app's sign-in such as `amp login --browser`).
 */
import { and, eq } from 'drizzle-orm';
import { decodeJwt, errors as joseErrors, importJWK, jwtVerify } from 'jose';
import { memberPrincipal, notAMember } from '../../auth/authenticate';
import type { Principal } from '../../auth/principal';
import { roleScopes } from '../../contract/roles';
import { holdsScope, SCOPES } from '../../contract/scopes';
import { oauthStore } from '../../db/schema';
import { identityKeys } from '../../identity/keys';
import { storedKey } from '../../oauth/adapter';
import { AppError } from '../../lib/errors';
import { findMembership } from '../../members/membership';
import type { Services } from '../../services';
import { apiResource, apiResources, MCP_SCOPES, mcpResource, mcpResourceMetadataUrl, mcpResources, oauthIssuer } from './endpoints';

/** RFC 9728 metadata of the MCP endpoint, naming it as the client at `host` does (`publicBaseFor`). */
export function protectedResourceMetadata(svc: Services, host?: string) {
  return {
    resource: mcpResource(svc, host),
    authorization_servers: [oauthIssuer(svc)],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Agent Module Platform MCP server',
    resource_documentation: `${svc.config.publicBaseUrl}/api/llms.txt`,
  };
}

/** RFC 9728 metadata of the REST API (`/api/v1`): what a native app signs in for; every scope of the API. */
export function apiResourceMetadata(svc: Services, host?: string) {
  return {
    resource: apiResource(svc, host),
    authorization_servers: [oauthIssuer(svc)],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Agent Module Platform API',
    resource_documentation: `${svc.config.publicBaseUrl}/api/openapi.json`,
  };
}

/** Whether the built-in authorization server runs (it needs the built-in identity provider's key). */
export function oauthEnabled(svc: Services): boolean {
  if (!svc.config.auth.builtin) return false;
  try {
    identityKeys(svc);
    return true;
  } catch {
    return false;
  }
}

const quote = (s: string) => `"${s.replace(/["\\]/g, '')}"`;

/**
 * The `WWW-Authenticate` value of a refusal at /api/mcp: always names the resource metadata;
 * `invalid_token` when a token was sent and refused, `insufficient_scope` with the scope needed;
 * otherwise `scope` names the endpoint's scopes (MCP authorization: clients ask for those rather
 * than everything in `scopes_supported`).
 */
export function mcpChallenge(
  svc: Services,
  opts: { error?: 'invalid_token' | 'insufficient_scope'; scope?: string; description?: string; host?: string } = {},
): string {
  // Without the built-in authorization server (AUTH_URL elsewhere) there is no metadata to name.
  const parts = oauthEnabled(svc) ? [`resource_metadata=${quote(mcpResourceMetadataUrl(svc, opts.host))}`] : [];
  if (opts.error) parts.push(`error=${quote(opts.error)}`);
  const scope = opts.scope ?? (parts.length ? MCP_SCOPES.join(' ') : undefined);
  if (scope) parts.push(`scope=${quote(scope)}`);
  if (opts.description) parts.push(`error_description=${quote(opts.description)}`);
  return parts.length ? `Bearer ${parts.join(', ')}` : 'Bearer';
}

/** Whether a bearer token claims to come from this authorization server (unverified: routing only). */
export function isOAuthAccessToken(svc: Services, token: string): boolean {
  try {
    return decodeJwt(token).iss === oauthIssuer(svc);
  } catch {
    return false;
  }
}

const invalid = (why = 'The access token is invalid or expired.') => new AppError('unauthorized', why);

const publicKeys = new WeakMap<Services['config'], Promise<CryptoKey | Uint8Array>>();

/** The protected resources of the authorization server: what a token's audience must name. */
const RESOURCES = {
  mcp: { names: mcpResources, canonical: mcpResource },
  api: { names: apiResources, canonical: apiResource },
} as const;

/**
 * Verifies an access token of the built-in authorization server for `resource` (`/api/mcp`, or
 * the REST API `/api/v1`): ES256 with the identity key, issuer, audience = that resource (a token
 * for the other is refused), `exp`; its grant must still exist (revocation); `sub` (the auth user
 * id) acts for its membership (the tenant `X-Tenant-Id` names, else its oldest). The principal
 * holds only the scopes the token carries that the member's role holds.
 */
export async function authenticateOAuthAccessToken(
  svc: Services,
  resource: keyof typeof RESOURCES,
  token: string,
  tenantId?: string,
): Promise<Principal> {
  if (!oauthEnabled(svc)) throw invalid();
  const keys = identityKeys(svc);
  let key = publicKeys.get(svc.config);
  if (!key) {
    key = importJWK(keys.publicJwk as Parameters<typeof importJWK>[0], 'ES256');
    publicKeys.set(svc.config, key);
  }
  let payload;
  try {
    ({ payload } = await jwtVerify(token, await key, {
      algorithms: ['ES256'],
      issuer: oauthIssuer(svc),
      audience: RESOURCES[resource].names(svc),
      requiredClaims: ['exp', 'sub'],
      typ: 'at+jwt',
    }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw invalid('The access token has expired.');
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud')
      throw invalid(`The access token is not for this resource (${RESOURCES[resource].canonical(svc)}).`);
    throw invalid();
  }
  const grantId = typeof payload.gid === 'string' ? payload.gid : undefined;
  if (!grantId) throw invalid();
  const [grant] = await svc.db
    .select({ expiresAt: oauthStore.expiresAt })
    .from(oauthStore)
    .where(and(eq(oauthStore.model, 'Grant'), eq(oauthStore.id, storedKey(grantId))))
    .limit(1);
  if (!grant || (grant.expiresAt && grant.expiresAt.getTime() <= Date.now())) throw invalid('The access token has been revoked.');

  const identity = { issuer: keys.issuer, subject: String(payload.sub) };
  const membership = await findMembership(svc.db, identity, tenantId);
  if (!membership) {
    if (tenantId) throw notAMember();
    throw invalid("The access token's user has no tenant.");
  }
  // The token's scopes, within what the member's role allows (src/contract/roles.ts).
  const role = roleScopes(membership.role);
  const known = new Set<string>(SCOPES);
  const granted = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((s) => known.has(s)) : [];
  return memberPrincipal(
    membership,
    identity,
    granted.filter((s) => holdsScope(role, s)),
  );
}

/** The tenant a user of the built-in identity provider acts for by default (its oldest membership), if any. */
export async function userTenant(svc: Services, userId: string) {
  return (await findMembership(svc.db, { issuer: identityKeys(svc).issuer, subject: userId }))?.tenant;
}
