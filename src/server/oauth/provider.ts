/**
 * The OAuth 2.1 authorization server for MCP clients (issue #12 §3): an `oidc-provider`
 * instance (certified; PKCE, Dynamic Client Registration, resource indicators, revocation and
 * Client ID Metadata Documents built in), mounted under `/oauth` on the node:http surface.
 *
 * - issuer `${PUBLIC_BASE_URL}/oauth`; signing key = the identity provider's P-256 key, so one
 *   JWKS verifies everything this service issues;
 * - authorization code flow only, PKCE required (oidc-provider 9 knows only S256);
 * - every access token is a JWT bound to the MCP resource `${PUBLIC_BASE_URL}/api/mcp`
 *   (RFC 8707; another resource indicator is `invalid_target`), carrying only the scopes the
 *   user granted; refresh tokens rotate; revoking one revokes its grant;
 * - clients: registered by RFC 7591 (public, `token_endpoint_auth_method: none`) or named by an
 *   https URL whose Client ID Metadata Document is fetched through the SSRF guard;
 * - interactions (sign-in, consent) are the Next page `/consent/<uid>`, backed by
 *   src/server/oauth/interaction.ts.
 *
 * Loaded with the first request that needs it (`loadProvider`, endpoints.ts): oidc-provider and
 * its dependencies are ~6 MB of heap and ~15 MB resident that an instance serving no OAuth
 * client never needs.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eq } from 'drizzle-orm';
import Provider, { errors as oidcErrors } from 'oidc-provider';
import { authUsers } from '../../db/schema';
import { identityKeys } from '../../identity/keys';
import { guardedFetch } from '../../net/ssrf';
import { oauthAdapter } from '../../oauth/adapter';
import type { Services } from '../../services';
import { AppError } from '../errors';
import { sendError } from '../http/respond';
import { CONSENT_PAGE, mcpResource, OAUTH_MOUNT, OAUTH_SCOPES, oauthIssuer } from './endpoints';

const ACCESS_TOKEN_TTL = 60 * 60;

const providers = new WeakMap<Services, Promise<Provider>>();

/** The service's authorization server, built on first use. */
export function oauthProvider(svc: Services): Promise<Provider> {
  let provider = providers.get(svc);
  if (!provider) {
    provider = buildProvider(svc);
    providers.set(svc, provider);
    provider.catch(() => providers.delete(svc));
  }
  return provider;
}

async function buildProvider(svc: Services): Promise<Provider> {
  const keys = identityKeys(svc);
  const privateJwk = keys.privateJwk;
  const resource = mcpResource(svc);
  // Cookie signing keys, derived from the persistent private key: stable across restarts and
  // instances, never the key itself.
  const cookieKey = createHmac('sha256', String(privateJwk.d)).update('oauth-cookies').digest('base64url');
  const allowPrivate = svc.config.webhooks.allowPrivate;

  const provider = new Provider(oauthIssuer(svc), {
    adapter: oauthAdapter(svc.db, svc.config.encryptionKey),
    jwks: { keys: [privateJwk] },
    cookies: { keys: [cookieKey], long: { signed: true, httpOnly: true, sameSite: 'lax' }, short: { signed: true, httpOnly: true, sameSite: 'lax' } },
    // The identity provider's users: `sub` is the auth user id.
    async findAccount(_ctx: unknown, sub: string) {
      const [user] = await svc.db.select({ id: authUsers.id }).from(authUsers).where(eq(authUsers.id, sub)).limit(1);
      if (!user) return undefined;
      return { accountId: user.id, claims: async () => ({ sub: user.id }) };
    },
    scopes: ['openid', 'offline_access', ...OAUTH_SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The only key is the identity provider's P-256 key.
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    routes: PROVIDER_ROUTES,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true, allowedPolicy: async () => true },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // https only (oidc-provider checks the URL form); the fetch below is the SSRF guard's.
        allowFetch: async () => true,
        cacheDuration: { min: 30, max: 300 },
      },
      resourceIndicators: {
        enabled: true,
        // A request naming no resource gets the MCP resource (the only one there is).
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx: unknown, indicator: string) {
          if (indicator !== resource) throw new oidcErrors.InvalidTarget(`The only protected resource here is ${resource}.`);
          return {
            scope: OAUTH_SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_TTL,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    // The grant id travels in the token, so a revoked grant's access tokens stop working too.
    extraTokenClaims: async (_ctx: unknown, token: { grantId?: string }) => (token.grantId ? { gid: token.grantId } : undefined),
    // Refresh tokens for every client allowed the grant (MCP clients rarely ask for offline_access).
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Public clients (MCP Inspector in a browser) call the token endpoint cross-origin.
    clientBasedCORS: () => true,
    interactions: { url: async (_ctx: unknown, interaction: { uid: string }) => `${CONSENT_PAGE}/${interaction.uid}` },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL,
      AuthorizationCode: 60,
      RefreshToken: 30 * 24 * 60 * 60,
      Interaction: 60 * 60,
      Session: 14 * 24 * 60 * 60,
      Grant: 30 * 24 * 60 * 60,
      IdToken: ACCESS_TOKEN_TTL,
    },
    // Client ID Metadata Documents (and nothing else) are fetched through the SSRF guard.
    fetch: async (url: string | URL, init: { method?: string; headers?: Headers }) => {
      const headers: Record<string, string> = {};
      init.headers?.forEach((value, name) => {
        if (value) headers[name] = value;
      });
      const res = await guardedFetch(url, { method: init.method ?? 'GET', headers, requireHttps: true, allowPrivate, timeoutMs: 5000, maxRedirects: 0, maxBytes: 64 * 1024 });
      // Only what oidc-provider reads (caching and type); the body is already decoded.
      const kept: Record<string, string> = {};
      for (const name of ['cache-control', 'expires', 'content-type']) if (res.headers[name]) kept[name] = res.headers[name];
      return new Response(res.status === 204 || res.status === 304 ? null : new Uint8Array(res.body), { status: res.status, headers: kept });
    },
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      const text = escapeHtml(out.error_description ?? out.error ?? 'The authorization request failed.');
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head><body><main><h1>Authorization error</h1><p>${text}</p></main></body></html>`;
    },
  });
  // Its URLs come from PUBLIC_BASE_URL, as forwarded headers the handler sets (handleOAuthProvider).
  provider.proxy = true;
  provider.on('server_error', (_ctx: unknown, err: unknown) => svc.logger.error({ err }, 'oauth server error'));
  return provider;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Where oidc-provider answers, relative to OAUTH_MOUNT. */
const PROVIDER_ROUTES = {
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

/** A path oidc-provider has a route for (its own sub-paths included, e.g. `/authorize/<uid>`). */
function providerAnswers(providerPath: string): boolean {
  if (providerPath === '/.well-known/openid-configuration') return true;
  return Object.values(PROVIDER_ROUTES).some((route) => providerPath === route || providerPath.startsWith(`${route}/`));
}

/**
 * Serves one request under `/oauth/*` (and the RFC 8414 / OpenID discovery aliases) with
 * oidc-provider: the path is rewritten relative to its mount, as Koa's mount would.
 */
export async function handleOAuthProvider(svc: Services, req: IncomingMessage, res: ServerResponse, providerPath: string, requestId: string): Promise<void> {
  // Elsewhere it would answer a plain-text 404: ours is in the error format (DESIGN.md §6).
  if (!providerAnswers(providerPath)) {
    sendError(res, new AppError('not_found', `No OAuth endpoint at ${OAUTH_MOUNT}${providerPath}.`), requestId, { 'Access-Control-Allow-Origin': '*' });
    return;
  }
  const provider = await oauthProvider(svc);
  const original = req.url ?? '/';
  const query = original.includes('?') ? original.slice(original.indexOf('?')) : '';
  (req as IncomingMessage & { originalUrl?: string }).originalUrl = `${OAUTH_MOUNT}${providerPath}${query}`;
  req.url = `${providerPath}${query}`;
  // Every URL it derives (endpoints in its metadata, redirects) is PUBLIC_BASE_URL's, never the
  // Host a client sent: a forged Host would otherwise name another server's token endpoint in a
  // discovery document a cache may keep.
  const publicUrl = new URL(svc.config.publicBaseUrl);
  req.headers.host = publicUrl.host;
  req.headers['x-forwarded-host'] = publicUrl.host;
  req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
  if (!svc.config.trustProxy) delete req.headers['x-forwarded-for'];
  await new Promise<void>((resolve) => {
    res.once('close', resolve);
    res.once('finish', resolve);
    provider.callback()(req, res);
  });
}
