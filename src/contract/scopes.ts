import { z } from 'zod';

/** API key scopes (docs/auth.md); `*` holds every other one. */
export const SCOPES = [
  'modules:read',
  'modules:execute',
  'modules:install',
  'modules:write',
  'billing:read',
  'keys:manage',
  'memory:read',
  'memory:write',
  'audit:read',
  '*',
] as const;

export type Scope = (typeof SCOPES)[number];
export const scopeSchema = z.enum(SCOPES);

/** Scopes of a key created without a `scopes` field. */
export const DEFAULT_KEY_SCOPES: Scope[] = ['modules:read', 'modules:execute'];

export function holdsScope(held: readonly string[], wanted: string): boolean {
  return held.includes('*') || held.includes(wanted);
}

/** The first scope in `wanted` that `held` does not cover, if any. */
export function missingScope(held: readonly string[], wanted: readonly string[]): Scope | undefined {
  return wanted.find((s) => !holdsScope(held, s as Scope)) as Scope | undefined;
}
