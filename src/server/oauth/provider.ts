/**
 * The OAuth 2.1 authorization server for MCP clients: an `oidc-provider`
 * instance (certified; PKCE, Dynamic Client Registration, resource indicators, revocation and
 * Client ID Metadata Documents built in), mounted under `/oauth` on the node:http surface.
 *
 * - issuer `${PUBLIC_BASE_URL}/oauth`; signing key = the identity provider's P-256 key, so one
 *   JWKS verifies everything this service issues;
 * - authorization code flow only, PKCE required (oidc-provider 9 knows only S256);
 * - every access token is a JWT bound to one resource (RFC 8707): the MCP endpoint
 *   `${PUBLIC_BASE_URL}/api/mcp` (the default), or the REST API `${PUBLIC_BASE_URL}/api/v1` that
 *   a native app asks for (`amp login --browser`); another indicator is `invalid_target`. It
 *   carries only the scopes the user granted; refresh tokens rotate; revoking one revokes its grant;
 * - clients: registered by RFC 7591 or named by an https URL whose Client ID Metadata Document is
 *   fetched through the SSRF guard; redirect URIs are https or http on a loopback host (MCP
 *   authorization, OAuth 2.1 §2.3.1); a registered client authenticates at the token and
 *   revocation endpoints with exactly its registered `token_endpoint_auth_method` (`none` for
 *   public clients, the default) and revokes only its own tokens;
 * - interactions (sign-in, consent) are the Next page `/consent/<uid>`, backed by
 *   src/server/oauth/interaction.ts.
 *
 * Loaded with the first request that needs it (`loadProvider`, load.ts): oidc-provider and
 * its dependencies are ~6 MB of heap and ~15 MB resident that an instance serving no OAuth
 * client never needs.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eq } from 'drizzle-orm';
import Provider, { errors as oidcErrors } from 'oidc-provider';
import { authUsers } from '../../db/schema';
import { identityKeys } from '../../identity/keys';
import { rateLimitExceeded } from '../../metering/requests';
import { guardedFetch } from '../../net/ssrf';
import { oauthAdapter } from '../../oauth/adapter';
import type { Services } from '../../services';
import { AppError, errorBody } from '../errors';
import { sendJson } from '../http/respond';
import {
  apiResource,
  apiResources,
  CONSENT_PAGE,
  mcpResource,
  mcpResources,
  OAUTH_MOUNT,
  OAUTH_SCOPES,
  oauthIssuer,
  PROVIDER_ENDPOINTS,
  PROVIDER_ROUTES,
} from './endpoints';

export { PROVIDER_ENDPOINTS } from './endpoints';

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
  const resources = [...mcpResources(svc), ...apiResources(svc)];
  // Cookie signing keys, derived from the persistent private key: stable across restarts and
  // instances, never the key itself.
  const cookieKey = createHmac('sha256', String(privateJwk.d)).update('oauth-cookies').digest('base64url');
  const allowPrivate = svc.config.webhooks.allowPrivate;

  const provider = new Provider(oauthIssuer(svc), {
    adapter: oauthAdapter(svc.db, svc.config.encryptionKey),
    jwks: { keys: [privateJwk] },
    cookies: {
      keys: [cookieKey],
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
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
    extraClientMetadata: {
      // Not extra properties: listed so that this validator sees them, before oidc-provider's own
      // checks, for every client (registered, stored, or named by a metadata document).
      properties: ['client_name', 'redirect_uris'],
      validator(_ctx: unknown, key: string, value: unknown, metadata: Record<string, unknown>) {
        const problem = clientMetadataProblem(key, value, metadata);
        if (problem) throw new oidcErrors.InvalidClientMetadata(problem);
      },
    },
    routes: PROVIDER_ROUTES,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      // RFC 7009 §2.1: only the client a token was issued to may revoke it. Another client's
      // request is answered 200 like an unknown token's (oidc-provider's answer when this is
      // false), so it learns nothing about the token, and nothing is revoked.
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) =>
          token.clientId === client.clientId,
      },
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
        // A request naming no resource gets the MCP resource (MCP clients name it; a native app names /api/v1).
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx: unknown, indicator: string) {
          if (!resources.includes(indicator))
            throw new oidcErrors.InvalidTarget(`The protected resources here are ${resource} and ${apiResource(svc)}.`);
          return {
            scope: OAUTH_SCOPES.join(' '),
            // The name the client asked for (a loopback alias of the default PUBLIC_BASE_URL, see publicBaseFor).
            audience: indicator,
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
      const res = await guardedFetch(url, {
        method: init.method ?? 'GET',
        headers,
        requireHttps: true,
        allowPrivate,
        timeoutMs: 5000,
        maxRedirects: 0,
        maxBytes: 64 * 1024,
      });
      // Only what oidc-provider reads (caching and type); the body is already decoded.
      const kept: Record<string, string> = {};
      for (const name of ['cache-control', 'expires', 'content-type']) if (res.headers[name]) kept[name] = res.headers[name];
      return new Response(res.status === 204 || res.status === 304 ? null : new Uint8Array(res.body), {
        status: res.status,
        headers: kept,
      });
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
  provider.use(bodyTooLarge(svc.config.publicBaseUrl));
  enforceSecretMethod(provider);
  return provider;
}

/**
 * oidc-provider takes a client secret from the Authorization header (`client_secret_basic`) and
 * from the form (`client_secret_post`) alike, whichever of the two a client registered. Here a
 * client must use the one it registered (RFC 7591 §2: the client's "requested authentication
 * method for the token endpoint"), at the token and revocation endpoints alike.
 */
function enforceSecretMethod(provider: Provider): void {
  const proto = (provider.Client as unknown as { prototype: SecretClient }).prototype;
  const compare = proto.compareClientSecret;
  proto.compareClientSecret = function (this: SecretClient, secret: string) {
    const inHeader = Provider.ctx?.headers.authorization !== undefined;
    if (inHeader !== (this.clientAuthMethod === 'client_secret_basic')) {
      throw new oidcErrors.InvalidClientAuth(`the client is registered with ${this.clientAuthMethod}`);
    }
    return compare.call(this, secret);
  };
}

interface SecretClient {
  clientAuthMethod: string;
  compareClientSecret(secret: string): Promise<boolean>;
}

/**
 * What one client may register (RFC 7591 `invalid_client_metadata` past them): anyone may
 * register, so a client's stored size is bounded. docs/auth.md lists them.
 */
export const CLIENT_METADATA_LIMITS = {
  clientNameLength: 200,
  redirectUris: 10,
  redirectUriLength: 2000,
  /** The client's metadata as stored (JSON, what oidc-provider recognises of the body), in bytes. */
  metadataBytes: 16 * 1024,
} as const;

/** Why a client's metadata is refused, or undefined. Called for each of `extraClientMetadata.properties` in turn (redirect_uris last). */
function clientMetadataProblem(key: string, value: unknown, metadata: Record<string, unknown>): string | undefined {
  const limits = CLIENT_METADATA_LIMITS;
  if (key === 'client_name' && typeof value === 'string' && value.length > limits.clientNameLength)
    return `client_name must be at most ${limits.clientNameLength} characters`;
  if (key !== 'redirect_uris' || !Array.isArray(value)) return undefined;
  if (value.length > limits.redirectUris) return `redirect_uris must have at most ${limits.redirectUris} members`;
  if (value.some((uri) => typeof uri === 'string' && uri.length > limits.redirectUriLength))
    return `redirect_uris members must each be at most ${limits.redirectUriLength} characters`;
  if (value.some((uri) => typeof uri === 'string' && !redirectUriAllowed(uri))) return REDIRECT_URI_RULE;
  // Once per client (redirect_uris is always there): the whole of what would be stored.
  if (Buffer.byteLength(JSON.stringify(metadata)) > limits.metadataBytes)
    return `the client metadata must be at most ${limits.metadataBytes} bytes (16 KiB) as JSON`;
  return undefined;
}

/** Redirect URIs a client may register: https, or http on a loopback host (any port). */
const REDIRECT_URI_RULE = 'redirect_uris must be https URLs, or http URLs on a loopback host (127.0.0.1, [::1] or localhost)';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function redirectUriAllowed(uri: string): boolean {
  const url = URL.parse(uri);
  if (!url) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** oidc-provider's own limit on a request body (lib/shared/selective_body.js): it reads no more. */
const PROVIDER_BODY_LIMIT = 56 * 1024;

interface KoaContext {
  status: number;
  body: unknown;
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * A body past PROVIDER_BODY_LIMIT is, to oidc-provider, one that "failed to parse" (400): it
 * stops reading there, so such a request is the one whose body was not read to its end. That
 * answer becomes 413, naming the limit.
 */
function bodyTooLarge(publicBaseUrl: string) {
  return async (ctx: KoaContext, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.status !== 400 || ctx.req.readableEnded) return;
    if ((ctx.body as { error_description?: unknown } | undefined)?.error_description !== 'failed to parse the request body') return;
    const err = new AppError(
      'payload_too_large',
      `The request body is larger than ${PROVIDER_BODY_LIMIT} bytes (56 KiB), the limit of the OAuth endpoints.`,
    );
    ctx.status = err.status;
    ctx.body = oauthErrorBody(err, String(ctx.res.getHeader('x-request-id') ?? ''), publicBaseUrl);
  };
}

/**
 * The service's own errors under /oauth (no such endpoint, wrong method, body too large) in the
 * OAuth format that OAuth clients parse (`error`, `error_description`), with the fields of the
 * service's error format beside them (`message`, `request_id`, `doc_url`).
 */
function oauthErrorBody(err: AppError, requestId: string, publicBaseUrl: string): Record<string, unknown> {
  const { error, ...rest } = errorBody(err, requestId, publicBaseUrl);
  return { error, error_description: err.message, ...rest };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const HOUR_MS = 3_600_000;

const isRegistration = (providerPath: string, method: string | undefined) =>
  method === 'POST' && (providerPath === PROVIDER_ROUTES.registration || providerPath === `${PROVIDER_ROUTES.registration}/`);

/**
 * Dynamic client registration is open to anyone: OAUTH_REGISTER_LIMIT_PER_HOUR registrations per
 * client IP per hour (every attempt counts), on the shared limiter (Redis when configured, so
 * across instances). The refusal, or undefined when the registration may go ahead.
 */
async function registrationRefusal(svc: Services, ip: string): Promise<AppError | undefined> {
  const result = await svc.limiter.limit(`oauth-register:${ip}`, svc.config.oauthRegisterLimitPerHour, HOUR_MS);
  if (result.allowed) return undefined;
  return rateLimitExceeded(result, 'Too many client registrations from this address; retry after the indicated number of seconds.', false);
}

/** The methods `providerPath` answers (HEAD included with GET), or undefined when it is no endpoint. */
function providerMethods(providerPath: string): string[] | undefined {
  // oidc-provider's router takes a path with one trailing slash as the path without it.
  const path = providerPath.length > 1 && providerPath.endsWith('/') ? providerPath.slice(0, -1) : providerPath;
  const segments = path.split('/');
  const endpoint = PROVIDER_ENDPOINTS.find((e) => {
    const pattern = e.path.split('/');
    return pattern.length === segments.length && pattern.every((p, i) => (p === '*' ? segments[i] !== '' : p === segments[i]));
  });
  if (!endpoint) return undefined;
  return endpoint.methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
}

/**
 * Serves one request under `/oauth/*` (and the RFC 8414 / OpenID discovery aliases) with
 * oidc-provider: the path is rewritten relative to its mount, as Koa's mount would.
 */
export async function handleOAuthProvider(
  svc: Services,
  req: IncomingMessage,
  res: ServerResponse,
  providerPath: string,
  requestId: string,
  ip: string,
): Promise<void> {
  // Elsewhere, or with another method, oidc-provider would answer a plain-text 404: ours are
  // JSON, in the OAuth format (404, or 405 with Allow as on every other path).
  const methods = providerMethods(providerPath);
  if (!methods || !methods.includes(req.method ?? 'GET')) {
    const err = methods
      ? new AppError(
          'method_not_allowed',
          `Use ${methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').join(' or ')} on ${OAUTH_MOUNT}${providerPath}.`,
          { allowed_methods: methods },
          { Allow: methods.join(', ') },
        )
      : new AppError('not_found', `No OAuth endpoint at ${OAUTH_MOUNT}${providerPath}.`);
    sendJson(res, err.status, oauthErrorBody(err, requestId, svc.config.publicBaseUrl), {
      'Access-Control-Allow-Origin': '*',
      ...err.headers,
    });
    return;
  }
  if (isRegistration(providerPath, req.method)) {
    const refused = await registrationRefusal(svc, ip);
    if (refused) {
      sendJson(res, refused.status, oauthErrorBody(refused, requestId, svc.config.publicBaseUrl), {
        'Access-Control-Allow-Origin': '*',
        ...refused.headers,
      });
      return;
    }
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
