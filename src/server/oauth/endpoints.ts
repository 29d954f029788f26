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
