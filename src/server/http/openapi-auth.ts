/**
 * The authentication OpenAPI 3.1 document, served at AUTH_OPENAPI_PATH: the built-in identity
 * provider (`/auth/v1/*`, src/server/identity/openapi.ts) and the OAuth 2.1 authorization server
 * for MCP clients (src/server/oauth/openapi.ts). Separate from the main document
 * (`/api/openapi.json`), whose error body (`ApiError`) and response headers it shares: taken from
 * the main document as built, so the two never differ.
 */
import { API_TITLE, VERSION } from '../../version';
import { identityPaths, IDENTITY_SCHEMAS } from '../identity/openapi';
import { OAUTH_SCHEMAS, oauthPaths } from '../oauth/openapi';
import { buildOpenApiDocument } from '../openapi';
import { AUTH_HEADERS, JWKS_SCHEMA } from '../openapi-auth-parts';
import type { Json } from '../openapi-parts';
import { AUTH_OPENAPI_PATH } from './openapi';

export { AUTH_OPENAPI_PATH };

const TAGS = [
  {
    name: 'identity',
    description:
      'The built-in identity provider: a subset of Supabase Auth (GoTrue) at `/auth/v1`, compatible with `@supabase/supabase-js`. 404 on every path when `AUTH_URL` names another provider.',
  },
  {
    name: 'oauth',
    description:
      'The OAuth 2.1 authorization server for MCP clients (issuer `$PUBLIC_BASE_URL/oauth`) and the metadata documents that name it. Errors are in the OAuth format (`OAuthError`). Off (404) when `AUTH_URL` names another identity provider.',
  },
  {
    name: 'oauth-interaction',
    description:
      "The JSON endpoints behind the sign-in and consent page `/consent/{uid}`, in the API's error format. A client without the dashboard (`AMP_NO_NEXT=1`) drives the same steps.",
  },
];

/** The OpenAPI 3.1 document of `/auth/v1/*` and the OAuth endpoints; `baseUrl` is PUBLIC_BASE_URL. */
export function buildAuthOpenApiDocument(baseUrl: string): Json {
  const main = buildOpenApiDocument(baseUrl) as unknown as {
    components: { schemas: Record<string, Json>; headers: Record<string, Json> };
  };
  const paths = { ...identityPaths(), ...oauthPaths() };
  // The main document's response headers that these paths name (every component is used).
  const named = new Set([...JSON.stringify(paths).matchAll(/"#\/components\/headers\/([^"]+)"/g)].map((m) => m[1]!));
  const headers = Object.fromEntries(Object.entries(main.components.headers).filter(([name]) => named.has(name)));
  return {
    openapi: '3.1.0',
    info: {
      title: `${API_TITLE}: authentication`,
      version: VERSION,
      description:
        "The endpoints that issue credentials: the built-in identity provider (`/auth/v1`, GoTrue-compatible: bearer tokens for the API) and the OAuth 2.1 authorization server for MCP clients (`/oauth`, with its RFC 9728 and RFC 8414 metadata). The API itself is described by the main document (`/api/openapi.json`). Every response carries `X-Request-Id` and the rate-limit headers of the caller's pool, declared once in `components.headers` and listed on the error responses; `/auth/v1` requests count against the client IP's public pool (600 per minute), the OAuth endpoints only report it.",
      contact: { name: 'Agent Module Platform operator', url: baseUrl },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    externalDocs: { description: 'The main OpenAPI document (the API)', url: `${baseUrl}/api/openapi.json` },
    servers: [{ url: baseUrl, description: 'This deployment (PUBLIC_BASE_URL)' }],
    tags: TAGS,
    paths,
    components: {
      schemas: {
        ApiError: main.components.schemas.ApiError,
        JsonWebKeySet: JWKS_SCHEMA,
        ...IDENTITY_SCHEMAS,
        ...OAUTH_SCHEMAS,
      },
      headers: { ...headers, ...AUTH_HEADERS },
      securitySchemes: {
        AnonApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'apikey',
          description:
            "The identity provider's anon key (`AUTH_ANON_KEY`, or generated into `DATA_DIR/secrets.json` and logged at start-up). Public by design, like Supabase's: it identifies the project to client code and grants nothing on the API.",
        },
        BearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "The user's access token from this identity provider (a live session)",
        },
        ClientSecretBasic: {
          type: 'http',
          scheme: 'basic',
          description:
            'OAuth client authentication `client_secret_basic`: `client_id:client_secret`, for clients registered with that method',
        },
      },
    },
  };
}
