/**
 * Where the OAuth paths go (called by the request handler before anything else answers):
 *
 * - `/.well-known/oauth-protected-resource/api/mcp` (and the root form) and
 *   `/.well-known/oauth-protected-resource/api/v1`: RFC 9728 metadata of the MCP endpoint and of
 *   the REST API;
 * - `/.well-known/oauth-authorization-server/oauth`, `/.well-known/openid-configuration/oauth`
 *   (RFC 8414 path-inserted forms, which the MCP SDK tries first) and
 *   `/oauth/.well-known/openid-configuration`: the authorization server's metadata;
 * - `/oauth/interaction/*`: the sign-in and consent JSON endpoints;
 * - the rest of `/oauth/*`: oidc-provider (authorize, token, register, revoke, jwks).
 *
 * OAuth endpoints answer errors in the OAuth format (`{error, error_description}`, RFC 6749 /
 * 7591), not the API's own error format, because OAuth clients parse that format.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../lib/errors';
import type { Services } from '../../services';
import { sendError, sendJson } from '../http/respond';
import { handleInteraction, INTERACTION_ACTIONS, INTERACTION_PREFIX } from './interaction';
import { OAUTH_MOUNT, PROVIDER_ENDPOINTS } from './endpoints';
import { loadProvider } from './load';
import { apiResourceMetadata, oauthEnabled, protectedResourceMetadata } from './resource';

const API_RESOURCE_METADATA = '/.well-known/oauth-protected-resource/api/v1';
const RESOURCE_METADATA = new Set([
  '/.well-known/oauth-protected-resource/api/mcp',
  '/.well-known/oauth-protected-resource',
  API_RESOURCE_METADATA,
]);
const SERVER_METADATA = new Set(['/.well-known/oauth-authorization-server/oauth', '/.well-known/openid-configuration/oauth']);

/**
 * Every OAuth route and its methods (HEAD and OPTIONS left out; `*` is one path segment): the
 * metadata documents, the sign-in and consent endpoints and oidc-provider's endpoints.
 * src/server/oauth/openapi.ts documents each, and tests/api/openapi-auth.test.ts checks that.
 */
export function oauthRoutes(): { path: string; methods: string[] }[] {
  const get = (path: string) => ({ path, methods: ['GET'] });
  return [
    ...[...RESOURCE_METADATA, ...SERVER_METADATA].map(get),
    get(`${INTERACTION_PREFIX}*`),
    ...INTERACTION_ACTIONS.map((action) => ({ path: `${INTERACTION_PREFIX}*/${action}`, methods: ['POST'] })),
    ...PROVIDER_ENDPOINTS.map((e) => ({ path: `${OAUTH_MOUNT}${e.path}`, methods: e.methods.filter((m) => m !== 'OPTIONS') })),
  ];
}

/** Whether `pathname` is one of the OAuth paths (routed to the API side, never to Next). */
export function isOAuthPath(pathname: string): boolean {
  return (
    pathname === OAUTH_MOUNT || pathname.startsWith(`${OAUTH_MOUNT}/`) || RESOURCE_METADATA.has(pathname) || SERVER_METADATA.has(pathname)
  );
}

/** Answers an OAuth path; false when `pathname` is not one. */
export async function handleOAuthRoute(
  svc: Services,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  requestId: string,
  ip: string,
): Promise<boolean> {
  if (!isOAuthPath(pathname)) return false;
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'X-Request-Id, WWW-Authenticate' };
  if (!oauthEnabled(svc)) {
    // AUTH_URL points at another identity provider: this service is no authorization server.
    sendError(
      res,
      new AppError('not_found', 'OAuth for MCP clients needs the built-in identity provider (AUTH_URL is set).'),
      requestId,
      cors,
      svc.config.publicBaseUrl,
    );
    return true;
  }
  if (RESOURCE_METADATA.has(pathname)) {
    if (req.method === 'OPTIONS') return preflight(res, cors);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(
        res,
        new AppError('method_not_allowed', 'Use GET on this path.', { allowed_methods: ['GET'] }, { Allow: 'GET, HEAD, OPTIONS' }),
        requestId,
        cors,
        svc.config.publicBaseUrl,
      );
      return true;
    }
    const metadata =
      pathname === API_RESOURCE_METADATA ? apiResourceMetadata(svc, req.headers.host) : protectedResourceMetadata(svc, req.headers.host);
    sendJson(res, 200, metadata, { ...cors, 'Cache-Control': 'public, max-age=300' });
    return true;
  }
  if (pathname.startsWith(INTERACTION_PREFIX)) {
    await handleInteraction(svc, req, res, pathname, requestId, ip);
    return true;
  }
  const providerPath = SERVER_METADATA.has(pathname) ? '/.well-known/openid-configuration' : pathname.slice(OAUTH_MOUNT.length) || '/';
  await (await loadProvider()).handleOAuthProvider(svc, req, res, providerPath, requestId, ip);
  return true;
}

function preflight(res: ServerResponse, cors: Record<string, string>): true {
  res.writeHead(204, {
    ...cors,
    'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
    'Access-Control-Allow-Headers': 'MCP-Protocol-Version, Accept',
    'Access-Control-Max-Age': '86400',
  });
  res.end();
  return true;
}
