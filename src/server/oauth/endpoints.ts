/**
 * The OAuth names and addresses (src/server/oauth/provider.ts builds the server itself), without
 * oidc-provider: the request handler, the resource metadata and token checks import these at
 * start-up, and the provider module loads with the first request that needs it (load.ts).
 */
import { SCOPES } from '../../contract/scopes';
import type { Services } from '../../services';

/** Where the authorization server lives, relative to PUBLIC_BASE_URL. */
export const OAUTH_MOUNT = '/oauth';
/** The Next page that signs the user in and asks for consent (`/consent/<uid>`). */
export const CONSENT_PAGE = '/consent';

export const oauthIssuer = (svc: Services) => `${svc.config.publicBaseUrl}${OAUTH_MOUNT}`;

/** The names of this machine: with the default PUBLIC_BASE_URL, each is the service's origin. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The service's base URL as a client that sent `host` (the Host header) names it. PUBLIC_BASE_URL
 * when it is set. When it is not (the default `http://localhost:PORT`), `127.0.0.1:PORT`,
 * `[::1]:PORT` and `localhost:PORT` are one origin: a client is answered with the one it used,
 * so that the MCP SDK finds the resource it connected to (it compares them exactly).
 */
export function publicBaseFor(svc: Services, host?: string): string {
  const base = svc.config.publicBaseUrl;
  if (!host || !svc.config.publicBaseUrlDefaulted) return base;
  return loopbackBases(svc).find((alias) => alias === `http://${host.toLowerCase()}`) ?? base;
}

/** PUBLIC_BASE_URL, and with the default one its loopback aliases on the same port. */
function loopbackBases(svc: Services): string[] {
  const base = svc.config.publicBaseUrl;
  if (!svc.config.publicBaseUrlDefaulted) return [base];
  const { port } = new URL(base);
  return [base, ...LOOPBACK_NAMES.map((name) => `http://${name}${port ? `:${port}` : ''}`).filter((b) => b !== base)];
}

/** The MCP endpoint as an OAuth protected resource (RFC 8707 indicator, token audience), as the client at `host` names it. */
export const mcpResource = (svc: Services, host?: string) => `${publicBaseFor(svc, host)}/api/mcp`;
/** Every name of the MCP resource: a token for any of them is a token for /api/mcp. */
export const mcpResources = (svc: Services) => loopbackBases(svc).map((base) => `${base}/api/mcp`);
/**
 * The REST API as an OAuth protected resource: what a native app's sign-in asks for
 * (`amp login --browser`); its tokens work wherever an API key does, except at /api/mcp.
 */
export const apiResource = (svc: Services, host?: string) => `${publicBaseFor(svc, host)}/api/v1`;
export const apiResources = (svc: Services) => loopbackBases(svc).map((base) => `${base}/api/v1`);
/** Its RFC 9728 metadata document. */
export const mcpResourceMetadataUrl = (svc: Services, host?: string) =>
  `${publicBaseFor(svc, host)}/.well-known/oauth-protected-resource/api/mcp`;

/** The scopes an MCP client may ask for: every scope of the API. */
export const OAUTH_SCOPES: readonly string[] = SCOPES;

/**
 * The scopes that mean something at /api/mcp (src/server/mcp/server.ts `scopeFor`): what its
 * metadata advertises and its challenges name, so a client asks for least privilege; also what a
 * user is offered when a client names no scope.
 */
export const MCP_SCOPES: readonly string[] = ['modules:read', 'modules:execute'];

/** Where oidc-provider answers, relative to OAUTH_MOUNT (its `routes` setting). */
export const PROVIDER_ROUTES = {
  authorization: '/authorize',
  token: '/token',
  registration: '/register',
  revocation: '/revoke',
  jwks: '/jwks',
  userinfo: '/userinfo',
  end_session: '/logout',
  introspection: '/introspect',
  pushed_authorization_request: '/par',
};

/**
 * The endpoints oidc-provider serves with the features provider.ts enables, and their methods (`*`:
 * one path segment; HEAD wherever GET). The userinfo and introspection features are off, so
 * their paths are none of these. tests/api/mcp-oauth.test.ts checks every entry against the
 * provider, so an upgrade that moves one shows; src/server/oauth/openapi.ts documents each.
 */
export const PROVIDER_ENDPOINTS: readonly { path: string; methods: readonly string[] }[] = [
  { path: '/.well-known/openid-configuration', methods: ['GET', 'OPTIONS'] },
  { path: PROVIDER_ROUTES.authorization, methods: ['GET'] },
  // Back from the sign-in and consent page.
  { path: `${PROVIDER_ROUTES.authorization}/*`, methods: ['GET'] },
  { path: PROVIDER_ROUTES.token, methods: ['POST', 'OPTIONS'] },
  { path: PROVIDER_ROUTES.registration, methods: ['POST'] },
  // RFC 7592's read, which needs a registration access token (none is issued here: always 401).
  { path: `${PROVIDER_ROUTES.registration}/*`, methods: ['GET'] },
  { path: PROVIDER_ROUTES.revocation, methods: ['POST', 'OPTIONS'] },
  { path: PROVIDER_ROUTES.jwks, methods: ['GET', 'OPTIONS'] },
  { path: PROVIDER_ROUTES.pushed_authorization_request, methods: ['POST', 'OPTIONS'] },
  { path: PROVIDER_ROUTES.end_session, methods: ['GET'] },
  { path: `${PROVIDER_ROUTES.end_session}/confirm`, methods: ['POST'] },
  { path: `${PROVIDER_ROUTES.end_session}/success`, methods: ['GET'] },
];
