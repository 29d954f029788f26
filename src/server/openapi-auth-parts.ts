/**
 * The pieces the identity provider's and the authorization server's path items share in the
 * authentication OpenAPI document (src/server/http/openapi-auth.ts assembles it): JSON, HTML and
 * redirect responses with the headers an API response of their status declares, and references to components.
 */
import { responseHeaders, type Json } from './openapi-parts';

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A response of `status` with its headers (an error's: the pool), and a JSON body of `schema` when given. */
export function jsonResponse(status: string, description: string, schema?: Json): Json {
  return {
    description,
    ...responseHeaders(status),
    ...(schema ? { content: { 'application/json': { schema } } } : {}),
  };
}

/** An error response whose body is the component `schema` (ApiError, IdentityError, OAuthError). */
export const errorOf = (schema: string) => (status: string, description: string) => jsonResponse(status, description, schemaRef(schema));

/** A redirect (302 / 303) with its `Location`; `text`: with oidc-provider's short body ("Redirecting to ...", HTML when the client accepts it). */
export function redirectResponse(status: string, description: string, text = false): Json {
  return {
    description,
    headers: { ...responseHeaders(status).headers, Location: { $ref: '#/components/headers/Location' } },
    ...(text ? { content: { 'text/html': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } } } : {}),
  };
}

/** An HTML page (oidc-provider's error page, its logout pages). */
export function htmlResponse(status: string, description: string): Json {
  return { description, ...responseHeaders(status), content: { 'text/html': { schema: { type: 'string' } } } };
}

/** The headers this document adds to the main document's. */
export const AUTH_HEADERS: Record<string, Json> = {
  Location: { description: 'Where to go next (an absolute URL).', required: true, schema: { type: 'string', format: 'uri' } },
};

/** A query parameter. */
export function query(name: string, description: string, schema: Json, required = false): Json {
  return { name, in: 'query', required, description, schema };
}

/** A path parameter (one segment). */
export function pathParam(name: string, description: string): Json {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}

/** The JSON Web Key Set of the service's one signing key (the identity provider's and the authorization server's). */
export const JWKS_SCHEMA: Json = {
  type: 'object',
  description: 'A JSON Web Key Set (RFC 7517): the public P-256 key that signs every token this service issues.',
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['kty', 'crv', 'x', 'y'],
        properties: {
          kty: { type: 'string', const: 'EC' },
          crv: { type: 'string', const: 'P-256' },
          x: { type: 'string' },
          y: { type: 'string' },
          kid: { type: 'string', description: 'The RFC 7638 thumbprint of the key' },
          alg: { type: 'string', const: 'ES256' },
          use: { type: 'string', const: 'sig' },
        },
      },
    },
  },
};
