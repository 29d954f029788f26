import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { AppError } from '../lib/errors';
import type { Config } from '../config';

/** The built-in identity provider's signing material (ES256, P-256). */
export interface IdentityKeys {
  /** The private key as a JWK (with `kid`, `alg`, `use`); never leaves the process. */
  privateJwk: JsonWebKey & { kid: string; alg: 'ES256'; use: 'sig' };
  /** The public key as published in `/auth/v1/.well-known/jwks.json`. */
  publicJwk: JsonWebKey & { kid: string; alg: 'ES256'; use: 'sig' };
  kid: string;
  /** `${PUBLIC_BASE_URL}/auth/v1`: the `iss` of every token it signs. */
  issuer: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

const cache = new WeakMap<Config, IdentityKeys>();

/** The issuer of the built-in provider's tokens for a base URL. */
export function builtinIssuer(publicBaseUrl: string): string {
  return `${publicBaseUrl}/auth/v1`;
}

/**
 * The built-in provider's keys, from `AUTH_SIGNING_KEY` (or the one generated into DATA_DIR).
 * `kid` is the RFC 7638 thumbprint of the public key, so every instance sharing the key agrees.
 */
export function identityKeys(svc: { config: Config }): IdentityKeys {
  const cached = cache.get(svc.config);
  if (cached) return cached;
  const keys = deriveKeys(svc.config.auth.signingKey, svc.config.auth.issuer ?? builtinIssuer(svc.config.publicBaseUrl));
  cache.set(svc.config, keys);
  return keys;
}

export function deriveKeys(signingKey: string | undefined, issuer: string): IdentityKeys {
  if (!signingKey) throw new AppError('not_found', 'The built-in identity provider is not enabled (AUTH_URL points elsewhere).');
  const jwk = JSON.parse(signingKey) as JsonWebKey;
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  const publicKey = createPublicKey(privateKey);
  const pub = publicKey.export({ format: 'jwk' });
  const kid = createHash('sha256')
    .update(JSON.stringify({ crv: pub.crv, kty: pub.kty, x: pub.x, y: pub.y }))
    .digest('base64url');
  const meta = { kid, alg: 'ES256' as const, use: 'sig' as const };
  return {
    privateJwk: { ...jwk, ...meta },
    publicJwk: { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y, ...meta },
    kid,
    issuer,
    privateKey,
    publicKey,
  };
}
