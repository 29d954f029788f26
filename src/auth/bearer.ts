import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config';
import { AppError } from '../lib/errors';

export interface BearerClaims {
  email: string;
  subject?: string;
}

export interface BearerVerifier {
  readonly enabled: boolean;
  /** Verifies signature, algorithm, expiry, issuer and audience; throws 401 otherwise. */
  verify(token: string): Promise<BearerClaims>;
}

const invalidToken = (why = 'The bearer token is invalid or expired.') => new AppError('unauthorized', why);

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/**
 * Bearer tokens are JWTs from the identity provider, checked with `jose`: against its JWKS
 * (asymmetric algorithms only) or a shared secret (HS256 only). `alg: none` and any algorithm
 * outside that list are refused. With neither configured, every bearer token is refused.
 */
export function createBearerVerifier(auth: Config['auth']): BearerVerifier {
  let keys: Uint8Array | JWTVerifyGetKey | undefined;
  let algorithms: string[] = [];
  if (auth.jwksUrl) {
    keys = createRemoteJWKSet(new URL(auth.jwksUrl), { timeoutDuration: 3000 });
    algorithms = ASYMMETRIC;
  } else if (auth.jwtSecret) {
    keys = new TextEncoder().encode(auth.jwtSecret);
    algorithms = ['HS256'];
  }
  return {
    enabled: keys !== undefined,
    async verify(token) {
      if (!keys) throw invalidToken('Bearer tokens are not enabled on this server; use x-api-key.');
      try {
        // Bearer tokens expire (spec §5 rule 4): a token without `exp` is refused.
        const options = { algorithms, audience: auth.audience, issuer: auth.issuer, requiredClaims: ['exp'] };
        const { payload } =
          keys instanceof Uint8Array ? await jwtVerify(token, keys, options) : await jwtVerify(token, keys, options);
        if (typeof payload.email !== 'string' || payload.email.length === 0) throw invalidToken('The bearer token has no email.');
        return { email: payload.email.toLowerCase(), subject: payload.sub };
      } catch (err) {
        if (err instanceof AppError) throw err;
        if (err instanceof joseErrors.JWTExpired) throw invalidToken('The bearer token has expired.');
        throw invalidToken();
      }
    },
  };
}
