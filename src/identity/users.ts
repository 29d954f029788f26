import { hash, randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { authUsers, type AuthUserRow } from '../db/schema';
import { AppError } from '../lib/errors';

/** The GoTrue user object (`/auth/v1/user`, and `user` in sessions), as supabase-js reads it. */
export interface GoTrueUser {
  id: string;
  aud: 'authenticated';
  role: 'authenticated';
  email: string;
  email_confirmed_at: string | null;
  confirmed_at: string | null;
  confirmation_sent_at?: string;
  recovery_sent_at?: string;
  last_sign_in_at: string | null;
  phone: string;
  app_metadata: { provider: 'email'; providers: ['email'] };
  user_metadata: Record<string, unknown>;
  identities: unknown[];
  created_at: string;
  updated_at: string;
  is_anonymous: false;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentUser(u: AuthUserRow): GoTrueUser {
  const emailVerified = u.emailConfirmedAt !== null;
  const identityData = { email: u.email, email_verified: emailVerified, phone_verified: false, sub: u.id };
  return {
    id: u.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: u.email,
    email_confirmed_at: iso(u.emailConfirmedAt),
    confirmed_at: iso(u.emailConfirmedAt),
    ...(u.confirmationSentAt ? { confirmation_sent_at: u.confirmationSentAt.toISOString() } : {}),
    ...(u.recoverySentAt ? { recovery_sent_at: u.recoverySentAt.toISOString() } : {}),
    last_sign_in_at: iso(u.lastSignInAt),
    phone: '',
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: { ...u.userMetadata, ...identityData },
    identities: [
      {
        identity_id: u.id,
        id: u.id,
        user_id: u.id,
        identity_data: identityData,
        provider: 'email',
        last_sign_in_at: iso(u.lastSignInAt),
        created_at: u.createdAt.toISOString(),
        updated_at: u.updatedAt.toISOString(),
        email: u.email,
      },
    ],
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
    is_anonymous: false,
  };
}

export async function findUserByEmail(db: Executor, email: string): Promise<AuthUserRow | undefined> {
  const [row] = await db
    .select()
    .from(authUsers)
    .where(sql`lower(${authUsers.email}) = ${email.toLowerCase()}`)
    .limit(1);
  return row;
}

export async function findUserById(db: Executor, id: string): Promise<AuthUserRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await db.select().from(authUsers).where(eq(authUsers.id, id)).limit(1);
  return row;
}

/** A one-time token for a mailed (or logged) link and the SHA-256 that is stored instead. */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string) => hash('sha256', token, 'hex');

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The email of a sign-up or sign-in body, lower-cased; GoTrue's `validation_failed` otherwise. */
export function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string' || email.length > 254 || !EMAIL.test(email.trim())) {
    throw new AppError('invalid_request', 'Unable to validate email address: invalid format', {
      error_code: 'validation_failed',
      issues: [{ path: 'email', message: 'Invalid email address' }],
    });
  }
  return email.trim().toLowerCase();
}
