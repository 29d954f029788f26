/**
 * The OpenAPI path items and schemas of the OAuth 2.1 authorization server for MCP clients
 * (src/server/oauth/*): the RFC 9728 / RFC 8414 metadata documents, oidc-provider's endpoints
 * (authorize, token, registration, revocation, JWKS, pushed authorization requests, logout) and
 * the sign-in and consent JSON endpoints, for the authentication document
 * (src/server/http/openapi-auth.ts). One entry per route and method of `oauthRoutes()`:
 * tests/api/openapi-auth.test.ts fails when a route has none.
 */
import { z } from 'zod';
import { errorOf, htmlResponse, jsonResponse, pathParam, query, redirectResponse, schemaRef } from '../openapi-auth-parts';
import { INTERNAL, type Json, type PathItems } from '../openapi-parts';
import { OAUTH_SCOPES } from './endpoints';
import { consentBody, INTERACTION_BODY_LIMIT, loginBody } from './interaction';
import { oauthRoutes } from './routes';

const oauthError = errorOf('OAuthError');
const apiError = errorOf('ApiError');

/** A zod schema of a handler as JSON Schema (without `$schema`: the document's dialect applies). */
function fromZod(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Json;
  return rest;
}

const SERVER_METADATA: Json = {
  type: 'object',
  description:
    'The authorization server metadata (RFC 8414; the same document at the OpenID discovery paths). Endpoints are named from `PUBLIC_BASE_URL`, never from the request.',
  required: [
    'issuer',
    'authorization_endpoint',
    'token_endpoint',
    'jwks_uri',
    'registration_endpoint',
    'revocation_endpoint',
    'response_types_supported',
    'code_challenge_methods_supported',
  ],
  properties: {
    issuer: { type: 'string', format: 'uri', description: '`$PUBLIC_BASE_URL/oauth`' },
    authorization_endpoint: { type: 'string', format: 'uri' },
    token_endpoint: { type: 'string', format: 'uri' },
    jwks_uri: { type: 'string', format: 'uri' },
    registration_endpoint: { type: 'string', format: 'uri' },
    revocation_endpoint: { type: 'string', format: 'uri' },
    pushed_authorization_request_endpoint: { type: 'string', format: 'uri' },
    end_session_endpoint: { type: 'string', format: 'uri' },
    response_types_supported: { type: 'array', items: { type: 'string', const: 'code' } },
    grant_types_supported: { type: 'array', items: { type: 'string' } },
    code_challenge_methods_supported: { type: 'array', items: { type: 'string', const: 'S256' } },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' } },
    client_id_metadata_document_supported: { type: 'boolean' },
  },
  additionalProperties: true,
};

const CLIENT_METADATA_PROPERTIES: Json = {
  client_name: { type: 'string', maxLength: 200 },
  redirect_uris: {
    type: 'array',
    minItems: 1,
    maxItems: 10,
    items: { type: 'string', format: 'uri', maxLength: 2000 },
    description: 'https URLs, or http URLs on a loopback host (127.0.0.1, [::1] or localhost)',
  },
  grant_types: { type: 'array', items: { type: 'string', enum: ['authorization_code', 'refresh_token'] } },
  response_types: { type: 'array', items: { type: 'string', const: 'code' } },
  token_endpoint_auth_method: {
    type: 'string',
    enum: ['none', 'client_secret_basic', 'client_secret_post'],
    default: 'none',
    description: 'How the client authenticates at the token and revocation endpoints: exactly this one is accepted',
  },
  client_uri: { type: 'string', format: 'uri' },
  scope: { type: 'string' },
};

/** The schemas of the authorization server's bodies. */
export const OAUTH_SCHEMAS: Record<string, Json> = {
  OAuthError: {
    type: 'object',
    description:
      "The OAuth error format (RFC 6749 §5.2, RFC 7591 §3.2.2), which OAuth clients parse. The service's own refusals there (body too large, too many registrations) carry the API's error fields beside it (`message`, `request_id`, `doc_url`), their `error` then being the API's code.",
    required: ['error'],
    properties: {
      error: {
        type: 'string',
        description: 'e.g. `invalid_request`, `invalid_grant`, `invalid_client`, `invalid_target`, `invalid_client_metadata`',
      },
      error_description: { type: 'string' },
      message: { type: 'string' },
      request_id: { type: 'string' },
      doc_url: { type: 'string', format: 'uri' },
    },
    additionalProperties: true,
  },
  ProtectedResourceMetadata: {
    type: 'object',
    description:
      'RFC 9728 metadata of `/api/mcp` or of the REST API (`/api/v1`), naming the resource as the client names this service (see docs/auth.md).',
    required: ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported'],
    properties: {
      resource: { type: 'string', format: 'uri', description: '`$PUBLIC_BASE_URL/api/mcp` or `$PUBLIC_BASE_URL/api/v1`' },
      authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' } },
      scopes_supported: {
        type: 'array',
        description: "The MCP endpoint's scopes, or every scope of the API",
        items: { type: 'string', enum: [...OAUTH_SCOPES] },
      },
      bearer_methods_supported: { type: 'array', items: { type: 'string', const: 'header' } },
      resource_name: { type: 'string' },
      resource_documentation: { type: 'string', format: 'uri' },
    },
  },
  AuthorizationServerMetadata: SERVER_METADATA,
  ClientMetadata: {
    type: 'object',
    description: 'RFC 7591 client metadata. The whole, as stored, is at most 16 KiB of JSON.',
    required: ['redirect_uris'],
    properties: CLIENT_METADATA_PROPERTIES,
    additionalProperties: true,
  },
  ClientInformation: {
    type: 'object',
    description: 'The registered client (RFC 7591 §3.2.1). No registration access token is issued.',
    required: ['client_id', 'redirect_uris', 'token_endpoint_auth_method'],
    properties: {
      client_id: { type: 'string' },
      client_id_issued_at: { type: 'integer' },
      client_secret: { type: 'string', description: 'Only for the `client_secret_*` methods' },
      client_secret_expires_at: { type: 'integer' },
      ...CLIENT_METADATA_PROPERTIES,
    },
    additionalProperties: true,
  },
  TokenResponse: {
    type: 'object',
    description:
      'An access token (an ES256 JWT, `typ: at+jwt`, `aud` the MCP resource, `scope` only what the user granted, one hour) and a refresh token that rotates on every use.',
    required: ['access_token', 'token_type', 'expires_in'],
    properties: {
      access_token: { type: 'string' },
      token_type: { type: 'string', const: 'Bearer' },
      expires_in: { type: 'integer' },
      scope: { type: 'string' },
      refresh_token: { type: 'string' },
      id_token: { type: 'string', description: 'With the `openid` scope' },
    },
  },
  InteractionDetails: {
    type: 'object',
    description:
      'What the consent page shows: the client, the requested scopes, and the signed-in user with its tenant (`null` before `login`).',
    required: ['uid', 'step', 'client', 'resource', 'scopes', 'account', 'tenant', 'account_page'],
    properties: {
      uid: { type: 'string' },
      step: { type: 'string', enum: ['login', 'consent'] },
      client: {
        type: 'object',
        required: ['client_id', 'client_name', 'client_uri', 'redirect_uri', 'metadata_document'],
        properties: {
          client_id: { type: 'string' },
          client_name: { type: ['string', 'null'] },
          client_uri: { type: ['string', 'null'] },
          redirect_uri: { type: 'string' },
          metadata_document: {
            type: 'boolean',
            description: 'Named by a Client ID Metadata Document (an https URL) rather than registered here',
          },
        },
      },
      resource: { type: 'string', format: 'uri' },
      scopes: { type: 'array', items: { type: 'string', enum: [...OAUTH_SCOPES] } },
      account: {
        oneOf: [
          { type: 'null' },
          { type: 'object', required: ['id', 'email'], properties: { id: { type: 'string', format: 'uuid' }, email: { type: 'string' } } },
        ],
      },
      tenant: {
        oneOf: [
          { type: 'null' },
          { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
        ],
      },
      account_page: { type: 'string', format: 'uri', description: 'Where a user without a tenant creates one' },
    },
  },
  InteractionRedirect: {
    type: 'object',
    description: "Where the browser goes next, with the interaction's cookies (oidc-provider checks them there).",
    required: ['redirect_to'],
    properties: { redirect_to: { type: 'string', format: 'uri' } },
  },
  InteractionLogin: fromZod(loginBody),
  InteractionConsent: fromZod(consentBody),
};

const form = (schema: Json) => ({ required: true, content: { 'application/x-www-form-urlencoded': { schema } } });

/** `client_id` and, for `client_secret_post`, `client_secret` in the form. */
const CLIENT_AUTH_FIELDS: Json = {
  client_id: { type: 'string', description: 'The client (public clients, and `client_secret_post`)' },
  client_secret: { type: 'string', description: 'Only with `client_secret_post`' },
};

/** Public clients (`none`: `client_id` in the form), `client_secret_post` (the form), or `client_secret_basic` (the header). */
const CLIENT_AUTH_SECURITY = [{}, { ClientSecretBasic: [] }];

const CLIENT_AUTH =
  'The client authenticates with exactly its registered `token_endpoint_auth_method`: `none` (public clients, the default: `client_id` in the form), `client_secret_post` (`client_id` and `client_secret` in the form) or `client_secret_basic` (HTTP Basic); another method is `invalid_client`.';

const BODY_TOO_LARGE = 'The body exceeds 56 KiB (`payload_too_large`, in the OAuth format with the API fields)';

const AUTHORIZE_PARAMETERS = [
  query('response_type', 'Only `code`', { type: 'string', const: 'code' }, true),
  query('client_id', 'A registered client, or the https URL of a Client ID Metadata Document', { type: 'string' }, true),
  query('redirect_uri', "One of the client's redirect URIs", { type: 'string', format: 'uri' }, true),
  query('code_challenge', 'PKCE challenge (required)', { type: 'string' }, true),
  query('code_challenge_method', 'Only `S256`', { type: 'string', const: 'S256' }, true),
  query('scope', "Space-separated scopes; none means the MCP endpoint's (`modules:read modules:execute`)", { type: 'string' }),
  query('resource', 'RFC 8707: the MCP endpoint `$PUBLIC_BASE_URL/api/mcp` (the default); another is `invalid_target`', {
    type: 'string',
    format: 'uri',
  }),
  query('state', 'Returned unchanged with the code', { type: 'string' }),
  query('request_uri', "A pushed authorization request's `request_uri` instead of the parameters above", { type: 'string' }),
];

interface OAuthOperation {
  tag: 'oauth' | 'oauth-interaction';
  summary: string;
  description: string;
  security?: Json[];
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
}

const METADATA_GET = (summary: string, description: string, schema: string): OAuthOperation => ({
  tag: 'oauth',
  summary,
  description: `${description} Public; exempt from the request limit. 404 when \`AUTH_URL\` points at another identity provider (no authorization server here).`,
  responses: {
    200: jsonResponse('200', 'The metadata', schemaRef(schema)),
    404: apiError('404', 'The built-in authorization server is off (`AUTH_URL` is set): `not_found`'),
    500: apiError('500', INTERNAL),
  },
});

const RESOURCE = METADATA_GET.bind(null, 'Protected resource metadata (RFC 9728)');
const SERVER = METADATA_GET.bind(null, 'Authorization server metadata (RFC 8414)');

const INTERACTION_ERRORS = {
  404: apiError('404', 'No such interaction: expired (1 h) or unknown (`not_found`)'),
  500: apiError('500', INTERNAL),
};
const INTERACTION_POST_ERRORS = {
  ...INTERACTION_ERRORS,
  400: apiError(
    '400',
    'Invalid body (`invalid_request`, with `issues`), text that cannot be stored, or a foreign `Origin` (cross-site request forgery)',
  ),
  413: apiError('413', `The body exceeds ${INTERACTION_BODY_LIMIT} bytes (16 KiB): \`payload_too_large\``),
};

/** Documented per `METHOD path`, the path as `oauthRoutes()` lists it (`*` one segment). */
const OPERATIONS: Record<string, { path: string; operation: OAuthOperation }> = {
  'GET /.well-known/oauth-protected-resource/api/mcp': {
    path: '/.well-known/oauth-protected-resource/api/mcp',
    operation: RESOURCE(
      'The MCP endpoint as an OAuth protected resource: which authorization server issues its tokens, and its scopes.',
      'ProtectedResourceMetadata',
    ),
  },
  'GET /.well-known/oauth-protected-resource/api/v1': {
    path: '/.well-known/oauth-protected-resource/api/v1',
    operation: RESOURCE(
      "The REST API (`/api/v1`) as an OAuth protected resource: what a native app's sign-in asks for (`resource`), which authorization server issues its tokens, and its scopes (every scope of the API). Its tokens work wherever an API key does, except at `/api/mcp`.",
      'ProtectedResourceMetadata',
    ),
  },
  'GET /.well-known/oauth-protected-resource': {
    path: '/.well-known/oauth-protected-resource',
    operation: RESOURCE('The same document at the root form of the path.', 'ProtectedResourceMetadata'),
  },
  'GET /.well-known/oauth-authorization-server/oauth': {
    path: '/.well-known/oauth-authorization-server/oauth',
    operation: SERVER(
      "The authorization server's metadata at the RFC 8414 path-inserted form (what the MCP SDK tries first).",
      'AuthorizationServerMetadata',
    ),
  },
  'GET /.well-known/openid-configuration/oauth': {
    path: '/.well-known/openid-configuration/oauth',
    operation: SERVER('The same document at the OpenID path-inserted form.', 'AuthorizationServerMetadata'),
  },
  'GET /oauth/.well-known/openid-configuration': {
    path: '/oauth/.well-known/openid-configuration',
    operation: SERVER('The same document at the OpenID Connect Discovery path under the issuer.', 'AuthorizationServerMetadata'),
  },
  'GET /oauth/interaction/*': {
    path: '/oauth/interaction/{uid}',
    operation: {
      tag: 'oauth-interaction',
      summary: 'An authorization request to sign in to and consent to',
      description:
        'What the consent page (`/consent/{uid}`) shows. The `uid` is in the redirect from `/oauth/authorize` to that page. `Cache-Control: no-store`.',
      parameters: [pathParam('uid', 'The interaction')],
      responses: { 200: jsonResponse('200', 'The request', schemaRef('InteractionDetails')), ...INTERACTION_ERRORS },
    },
  },
  'POST /oauth/interaction/*/login': {
    path: '/oauth/interaction/{uid}/login',
    operation: {
      tag: 'oauth-interaction',
      summary: 'Sign in (built-in identity provider)',
      description:
        "Checks the email and password with the built-in identity provider (its sign-in limits apply) and records the user on the interaction. A state-changing call: an `Origin` other than this service's is refused.",
      parameters: [pathParam('uid', 'The interaction')],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef('InteractionLogin') } } },
      responses: {
        200: jsonResponse('200', 'The request, now with the account and its tenant', schemaRef('InteractionDetails')),
        ...INTERACTION_POST_ERRORS,
        400: apiError('400', 'Wrong email or password, an unconfirmed email, or an invalid body (`invalid_request`); a foreign `Origin`'),
        429: apiError('429', 'Too many sign-in attempts for the email or the client IP (`rate_limit_exceeded`)'),
      },
    },
  },
  'POST /oauth/interaction/*/consent': {
    path: '/oauth/interaction/{uid}/consent',
    operation: {
      tag: 'oauth-interaction',
      summary: 'Grant scopes',
      description:
        "Grants the listed scopes (a subset of the requested ones, at least one) to the client for the MCP resource. Follow `redirect_to` with the interaction's cookies to get the redirect carrying `code`.",
      parameters: [pathParam('uid', 'The interaction')],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef('InteractionConsent') } } },
      responses: {
        200: jsonResponse('200', 'Granted', schemaRef('InteractionRedirect')),
        ...INTERACTION_POST_ERRORS,
        400: apiError('400', 'Scopes that were not requested, none, or an invalid body (`invalid_request`); a foreign `Origin`'),
        401: apiError('401', 'Nobody signed in on this interaction yet (`unauthorized`)'),
        409: apiError('409', 'The user has no tenant yet (`conflict`, `reason: no_tenant`)'),
      },
    },
  },
  'POST /oauth/interaction/*/abort': {
    path: '/oauth/interaction/{uid}/abort',
    operation: {
      tag: 'oauth-interaction',
      summary: 'Decline',
      description: 'The user declines: following `redirect_to` sends the client `error=access_denied`.',
      parameters: [pathParam('uid', 'The interaction')],
      requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: { 200: jsonResponse('200', 'Declined', schemaRef('InteractionRedirect')), ...INTERACTION_POST_ERRORS },
    },
  },
  'GET /oauth/authorize': {
    path: '/oauth/authorize',
    operation: {
      tag: 'oauth',
      summary: 'Authorization endpoint',
      description:
        'The authorization code flow with PKCE (`S256` only, required). Redirects the browser to the sign-in and consent page; a request the client may hear about (a bad scope or resource, no PKCE) is redirected to its `redirect_uri` with `error` and `state`. A request naming an unknown client or a redirect URI it did not register is an HTML error page (never a redirect).',
      parameters: AUTHORIZE_PARAMETERS,
      responses: {
        303: redirectResponse('303', 'To the consent page `/consent/{uid}`, or to `redirect_uri` with `error`', true),
        400: htmlResponse('400', 'An unknown client or redirect URI, or an invalid request that cannot be redirected: an HTML page'),
        500: htmlResponse('500', 'Internal error: an HTML page'),
      },
    },
  },
  'GET /oauth/authorize/*': {
    path: '/oauth/authorize/{uid}',
    operation: {
      tag: 'oauth',
      summary: 'Resume after consent',
      description:
        "Where the consent step's `redirect_to` leads. Needs the interaction's resume cookie (set by `/oauth/authorize`), so only the browser that started the flow can finish it. Redirects to the client's `redirect_uri` with `code` and `state` (or `error=access_denied` when the user declined).",
      parameters: [pathParam('uid', 'The interaction')],
      responses: {
        303: redirectResponse('303', 'To `redirect_uri` with `code` (or `error`) and `state`', true),
        400: htmlResponse('400', 'No or a wrong resume cookie, or an expired interaction: an HTML page'),
        500: htmlResponse('500', 'Internal error: an HTML page'),
      },
    },
  },
  'POST /oauth/token': {
    path: '/oauth/token',
    operation: {
      tag: 'oauth',
      summary: 'Token endpoint',
      description: `Exchanges an authorization code (with its \`code_verifier\`) or a refresh token (which rotates) for tokens. ${CLIENT_AUTH}`,
      security: CLIENT_AUTH_SECURITY,
      requestBody: form({
        oneOf: [
          {
            type: 'object',
            title: 'authorization_code',
            required: ['grant_type', 'code', 'redirect_uri', 'code_verifier'],
            properties: {
              grant_type: { type: 'string', const: 'authorization_code' },
              code: { type: 'string' },
              redirect_uri: { type: 'string', format: 'uri' },
              code_verifier: { type: 'string', minLength: 43, maxLength: 128 },
              resource: { type: 'string', format: 'uri' },
              ...CLIENT_AUTH_FIELDS,
            },
          },
          {
            type: 'object',
            title: 'refresh_token',
            required: ['grant_type', 'refresh_token'],
            properties: {
              grant_type: { type: 'string', const: 'refresh_token' },
              refresh_token: { type: 'string' },
              scope: { type: 'string', description: 'At most the granted scopes' },
              resource: { type: 'string', format: 'uri' },
              ...CLIENT_AUTH_FIELDS,
            },
          },
        ],
      }),
      responses: {
        200: jsonResponse('200', 'The tokens', schemaRef('TokenResponse')),
        400: oauthError(
          '400',
          '`invalid_grant` (an unknown, used or expired code or refresh token; a wrong verifier), `invalid_request`, `unsupported_grant_type`, `invalid_target`, `invalid_scope`',
        ),
        401: oauthError('401', 'Client authentication failed (`invalid_client`)'),
        413: oauthError('413', BODY_TOO_LARGE),
        500: oauthError('500', INTERNAL),
      },
    },
  },
  'POST /oauth/register': {
    path: '/oauth/register',
    operation: {
      tag: 'oauth',
      summary: 'Dynamic Client Registration (RFC 7591)',
      description:
        'Open to anyone: `OAUTH_REGISTER_LIMIT_PER_HOUR` registrations per client IP per hour (every attempt counts). Redirect URIs must be https, or http on a loopback host; a client name at most 200 characters, at most 10 redirect URIs of 2000 characters.',
      security: [],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef('ClientMetadata') } } },
      responses: {
        201: jsonResponse('201', 'The registered client', schemaRef('ClientInformation')),
        400: oauthError('400', '`invalid_client_metadata`, `invalid_redirect_uri`, or a body that is not JSON (`invalid_request`)'),
        413: oauthError('413', BODY_TOO_LARGE),
        429: oauthError('429', 'Too many registrations from this client IP (`rate_limit_exceeded`)'),
        500: oauthError('500', INTERNAL),
      },
    },
  },
  'GET /oauth/register/*': {
    path: '/oauth/register/{client_id}',
    operation: {
      tag: 'oauth',
      summary: 'Read a registration (RFC 7592)',
      description: 'Needs a registration access token, which this server never issues: always `invalid_token`.',
      security: [],
      parameters: [pathParam('client_id', 'The client')],
      responses: {
        401: oauthError('401', 'No registration access token is valid here (`invalid_token`)'),
        500: oauthError('500', INTERNAL),
      },
    },
  },
  'POST /oauth/revoke': {
    path: '/oauth/revoke',
    operation: {
      tag: 'oauth',
      summary: 'Token revocation (RFC 7009)',
      description: `Revoking a refresh token revokes its whole grant, its access tokens included. A client revokes only tokens issued to it: another client's token, like an unknown one, is 200 and nothing is revoked. An access token (a JWT) is not revoked by itself (\`unsupported_token_type\`). ${CLIENT_AUTH}`,
      security: CLIENT_AUTH_SECURITY,
      requestBody: form({
        type: 'object',
        required: ['token'],
        properties: {
          token: { type: 'string' },
          token_type_hint: { type: 'string', enum: ['refresh_token', 'access_token'] },
          ...CLIENT_AUTH_FIELDS,
        },
      }),
      responses: {
        200: jsonResponse('200', 'Revoked, or nothing to revoke (an empty body)'),
        400: oauthError('400', '`unsupported_token_type` (an access token), `invalid_request`'),
        401: oauthError('401', 'Client authentication failed (`invalid_client`)'),
        413: oauthError('413', BODY_TOO_LARGE),
        500: oauthError('500', INTERNAL),
      },
    },
  },
  'GET /oauth/jwks': {
    path: '/oauth/jwks',
    operation: {
      tag: 'oauth',
      summary: 'JSON Web Key Set',
      description: 'The public key that signs the access tokens: the same key as `/auth/v1/.well-known/jwks.json`. Public.',
      security: [],
      responses: {
        200: {
          description: 'The key set',
          headers: jsonResponse('200', '').headers,
          content: { 'application/jwk-set+json': { schema: schemaRef('JsonWebKeySet') } },
        },
        500: oauthError('500', INTERNAL),
      },
    },
  },
  'POST /oauth/par': {
    path: '/oauth/par',
    operation: {
      tag: 'oauth',
      summary: 'Pushed authorization request (RFC 9126)',
      description: `The authorization parameters of \`/oauth/authorize\`, pushed by the client; answers a \`request_uri\` to pass there with \`client_id\`. ${CLIENT_AUTH}`,
      security: CLIENT_AUTH_SECURITY,
      requestBody: form({
        type: 'object',
        required: ['response_type', 'redirect_uri', 'code_challenge', 'code_challenge_method'],
        properties: {
          response_type: { type: 'string', const: 'code' },
          redirect_uri: { type: 'string', format: 'uri' },
          code_challenge: { type: 'string' },
          code_challenge_method: { type: 'string', const: 'S256' },
          scope: { type: 'string' },
          resource: { type: 'string', format: 'uri' },
          state: { type: 'string' },
          ...CLIENT_AUTH_FIELDS,
        },
      }),
      responses: {
        201: jsonResponse('201', 'The request is stored', {
          type: 'object',
          required: ['request_uri', 'expires_in'],
          properties: { request_uri: { type: 'string' }, expires_in: { type: 'integer' } },
        }),
        400: oauthError('400', '`invalid_request`, `invalid_redirect_uri`, `invalid_scope`, `invalid_target`'),
        401: oauthError('401', 'Client authentication failed (`invalid_client`)'),
        413: oauthError('413', BODY_TOO_LARGE),
        500: oauthError('500', INTERNAL),
      },
    },
  },
  'GET /oauth/logout': {
    path: '/oauth/logout',
    operation: {
      tag: 'oauth',
      summary: 'End the authorization server session (RP-initiated logout)',
      description:
        "OpenID Connect RP-initiated logout: an HTML page asking the browser to confirm, which posts to `/oauth/logout/confirm`. Ends the authorization server's browser session, not the identity provider's.",
      security: [],
      parameters: [
        query('id_token_hint', 'An ID token the client received', { type: 'string' }),
        query('client_id', 'The client', { type: 'string' }),
        query('post_logout_redirect_uri', 'A registered post-logout redirect URI', { type: 'string', format: 'uri' }),
        query('state', 'Returned with the redirect', { type: 'string' }),
      ],
      responses: {
        200: htmlResponse('200', 'The confirmation page'),
        400: htmlResponse('400', 'An invalid request: an HTML page'),
        500: htmlResponse('500', 'Internal error: an HTML page'),
      },
    },
  },
  'POST /oauth/logout/confirm': {
    path: '/oauth/logout/confirm',
    operation: {
      tag: 'oauth',
      summary: 'Confirm the logout',
      description: 'The form of the logout page (its `xsrf` token, and `logout` to end the session).',
      security: [],
      requestBody: form({
        type: 'object',
        required: ['xsrf'],
        properties: { xsrf: { type: 'string' }, logout: { type: 'string', description: 'Present (`yes`) to end the session' } },
      }),
      responses: {
        303: redirectResponse('303', "To `/oauth/logout/success`, or the client's `post_logout_redirect_uri`", true),
        400: oauthError('400', 'A missing or wrong `xsrf` token, or no session (`invalid_request`)'),
        500: htmlResponse('500', 'Internal error: an HTML page'),
      },
    },
  },
  'GET /oauth/logout/success': {
    path: '/oauth/logout/success',
    operation: {
      tag: 'oauth',
      summary: 'Logged out',
      description: 'The page shown after a logout without a `post_logout_redirect_uri`.',
      security: [],
      responses: {
        200: htmlResponse('200', 'The page'),
        500: htmlResponse('500', 'Internal error: an HTML page'),
      },
    },
  },
};

/** The path items of the OAuth routes, one operation per route and method. */
export function oauthPaths(): PathItems {
  const paths: PathItems = {};
  for (const route of oauthRoutes()) {
    for (const method of route.methods) {
      const entry = OPERATIONS[`${method} ${route.path}`];
      if (!entry) continue;
      const { tag, security, ...op } = entry.operation;
      const operation: Json = {
        operationId: `oauth-${method.toLowerCase()}${entry.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '-')}`,
        tags: [tag],
        ...op,
        security: security ?? [],
        responses: Object.fromEntries(Object.entries(op.responses).sort(([a], [b]) => a.localeCompare(b))),
      };
      paths[entry.path] = { ...paths[entry.path], [method.toLowerCase()]: operation };
    }
  }
  return paths;
}
