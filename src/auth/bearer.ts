import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import type { Config } from '../config';
import { deriveKeys } from '../identity/keys';
import { AppError } from '../lib/errors';

export interface BearerClaims {
  /** The verified `iss` (or `external` for a shared-secret provider that sets none). */
  issuer: string;
  /** `sub`: the user at that issuer. With `issuer`, the identity a tenant is linked to. */
  subject: string;
  /** Lower-cased, or null when the token carries none. */
  email: string | null;
  /**
   * The token says the email is verified: the top-level OIDC `email_verified` claim only. Supabase's
   * `user_metadata.email_verified` is not taken: user_metadata is user-editable there.
   */
  emailVerified: boolean;
  /** The built-in provider's session (checked against revoked sessions). */
  sessionId?: string;
  /** Issued by the built-in identity provider (its key, its issuer). */
  builtin: boolean;
}

export interface BearerVerifier {
  readonly enabled: boolean;
  /** Verifies signature, algorithm, expiry, issuer and audience; throws 401 otherwise. */
  verify(token: string): Promise<BearerClaims>;
}

const invalidToken = (why = 'The bearer token is invalid or expired.') => new AppError('unauthorized', why);

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/**
 * Bearer tokens are JWTs checked with `jose`. With the built-in identity provider (AUTH_URL,
 * AUTH_JWKS_URL and AUTH_JWT_SECRET unset): its own ES256 public key (unknown `kid` refused), its
 * issuer, audience `authenticated`. With an external provider: its JWKS (AUTH_JWKS_URL, or
 * `{AUTH_URL}/auth/v1/.well-known/jwks.json`; asymmetric algorithms only) or a shared secret
 * (AUTH_JWT_SECRET, HS256 only). `alg: none` and any algorithm outside those lists are refused.
 */
export function createBearerVerifier(auth: Config['auth']): BearerVerifier {
  let keys: Uint8Array | JWTVerifyGetKey | undefined;
  let algorithms: string[] = [];
  const jwksUrl =
    auth.jwksUrl ?? (auth.url && !auth.jwtSecret ? `${auth.url.replace(/\/+$/, '')}/auth/v1/.well-known/jwks.json` : undefined);
  if (auth.builtin && auth.signingKey && auth.issuer) {
    const { publicJwk } = deriveKeys(auth.signingKey, auth.issuer);
    keys = createLocalJWKSet({ keys: [publicJwk as JWK] });
    algorithms = ['ES256'];
  } else if (jwksUrl) {
    keys = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 3000 });
    algorithms = ASYMMETRIC;
  } else if (auth.jwtSecret) {
    keys = new TextEncoder().encode(auth.jwtSecret);
    algorithms = ['HS256'];
  }
  return {
    enabled: keys !== undefined,
    async verify(token) {
      if (!keys) throw invalidToken('Bearer tokens are not enabled on this server; use x-api-key.');
      let payload: JWTPayload;
      try {
        // Bearer tokens expire (docs/auth.md): a token without `exp` is refused.
        const options = { algorithms, audience: auth.audience, issuer: auth.issuer, requiredClaims: ['exp'] };
        ({ payload } = keys instanceof Uint8Array ? await jwtVerify(token, keys, options) : await jwtVerify(token, keys, options));
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw invalidToken('The bearer token has expired.');
        throw invalidToken();
      }
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw invalidToken('The bearer token has no subject (`sub`).');
      const email = typeof payload.email === 'string' && payload.email.length > 0 ? payload.email.toLowerCase() : null;
      return {
        issuer: payload.iss ?? 'external',
        subject: payload.sub,
        email,
        emailVerified: email !== null && payload.email_verified === true,
        sessionId: typeof payload.session_id === 'string' ? payload.session_id : undefined,
        builtin: auth.builtin,
      };
    },
  };
}
