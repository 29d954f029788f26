/**
 * Operators: who may call the admin endpoints (docs/decisions.md, Admin). Two credentials:
 * - `x-admin-token` equal to ADMIN_TOKEN (scripts, the CLI);
 * - a bearer token (the dashboard's password session arrives as one) whose identity's email is in
 *   ADMIN_EMAILS and is proven: an external provider's `email_verified`, or the built-in
 *   provider's mailed confirmation (only with SMTP_URL). An unproven email is no operator: anyone
 *   could sign up with it.
 * The admin endpoints exist only when one of the two is configured (else 404).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { emailIsProven, verifyIdentity } from './link';

export interface OperatorCredentials {
  /** The `x-admin-token` header. */
  adminToken?: string;
  /** The `Authorization` header. */
  authorization?: string;
}

/** Whether the service has operators at all (ADMIN_TOKEN set or ADMIN_EMAILS non-empty). */
export function adminConfigured(svc: Pick<Services, 'config'>): boolean {
  return Boolean(svc.config.adminToken) || svc.config.adminEmails.length > 0;
}

function tokenMatches(configured: string | undefined, given: string | undefined): boolean {
  if (!configured || !given) return false;
  // Digests of equal length: the comparison's time tells nothing, not even the token's length.
  return timingSafeEqual(digest(given), digest(configured));
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Whether a verified bearer token belongs to an operator: its email listed in ADMIN_EMAILS and proven. */
export async function isOperatorBearer(svc: Services, token: string): Promise<boolean> {
  return (await operatorEmail(svc, token)) !== undefined;
}

/** The operator's email, when a verified bearer token belongs to an operator. */
async function operatorEmail(svc: Services, token: string): Promise<string | undefined> {
  const claims = await verifyIdentity(svc, token);
  if (!claims.email || !svc.config.adminEmails.includes(claims.email)) return undefined;
  return (await emailIsProven(svc, claims, token)) ? claims.email : undefined;
}

/** Who the admitted operator is: its proven email, or null for the x-admin-token. */
export interface Operator {
  email: string | null;
}

/**
 * Admits an operator or throws: 404 `not_found` when the service has no operators configured;
 * the right admin token, or an operator's bearer token, passes; a valid bearer token of anyone
 * else is 403 `forbidden`; a wrong or missing token (and an invalid bearer) is 401.
 */
export async function assertOperator(svc: Services, creds: OperatorCredentials): Promise<Operator> {
  if (!adminConfigured(svc)) throw new AppError('not_found', 'No such endpoint.');
  if (tokenMatches(svc.config.adminToken, creds.adminToken)) return { email: null };
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(creds.authorization ?? '')?.[1];
  if (bearer && svc.config.adminEmails.length > 0) {
    const email = await operatorEmail(svc, bearer);
    if (email) return { email };
    throw new AppError(
      'forbidden',
      'Only operators may call this endpoint: an email listed in ADMIN_EMAILS, confirmed, or the x-admin-token header.',
    );
  }
  throw new AppError('unauthorized', "A valid x-admin-token header (or an operator's bearer token) is required.");
}
