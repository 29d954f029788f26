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
/** The MCP endpoint as an OAuth protected resource (RFC 8707 indicator, token audience). */
export const mcpResource = (svc: Services) => `${svc.config.publicBaseUrl}/api/mcp`;
/** Its RFC 9728 metadata document. */
export const mcpResourceMetadataUrl = (svc: Services) => `${svc.config.publicBaseUrl}/.well-known/oauth-protected-resource/api/mcp`;

/** The scopes an MCP client may ask for: every scope of the API. */
export const OAUTH_SCOPES: readonly string[] = SCOPES;

/**
 * The scopes that mean something at /api/mcp (src/server/mcp/server.ts `scopeFor`): what its
 * metadata advertises and its challenges name, so a client asks for least privilege; also what a
 * user is offered when a client names no scope.
 */
export const MCP_SCOPES: readonly string[] = ['modules:read', 'modules:execute'];
