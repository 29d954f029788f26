import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { isUniqueViolation } from '../db';
import { authUsers, type AuthUserRow } from '../db/schema';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { sendAuthMail } from './mail';
import { assertStrongPassword, hashPassword } from './passwords';
import { issueSession, revokeSessions, type GoTrueSession } from './sessions';
import { overRateLimit } from './sign-in';
import { findUserById, hashToken, newLinkToken, normalizeEmail, presentUser, type GoTrueUser } from './users';

/** Confirmation links last a day, recovery links an hour (GoTrue's defaults). */
export const CONFIRMATION_TTL_MS = 24 * 3_600_000;
export const RECOVERY_TTL_MS = 3_600_000;
/** Recovery mails per address per hour, and sign-ups per client IP per hour. */
export const RECOVER_PER_EMAIL_PER_HOUR = 5;

export interface SignUpInput {
  email: unknown;
  password: unknown;
  data?: unknown;
  redirectTo?: string;
  ip: string;
}

/**
 * `POST /auth/v1/signup`. Without SMTP_URL the email is confirmed at once and the answer is a
 * session (GoTrue with autoconfirm); with it, a confirmation link is mailed and the answer is the
 * user (no session until the link is followed). An email already registered is 409
 * `user_already_exists`.
 */
export async function signUp(svc: Services, input: SignUpInput): Promise<GoTrueSession | GoTrueUser> {
  const email = normalizeEmail(input.email);
  assertStrongPassword(input.password);
  const limited = await svc.limiter.limit(`signup:${input.ip}`, svc.config.registerLimitPerHour, 3_600_000);
  if (!limited.allowed) throw overRateLimit(limited, 'Too many sign-ups from this address; retry after the indicated number of seconds.');
  const metadata =
    input.data && typeof input.data === 'object' && !Array.isArray(input.data) ? (input.data as Record<string, unknown>) : {};
  const mail = Boolean(svc.config.smtpUrl);
  const link = mail ? newLinkToken() : undefined;
  let user: AuthUserRow;
  try {
    [user] = (await svc.db
      .insert(authUsers)
      .values({
        email,
        passwordHash: await hashPassword(input.password),
        userMetadata: metadata,
        emailConfirmedAt: mail ? null : new Date(),
        confirmationTokenHash: link?.hash ?? null,
        confirmationSentAt: mail ? new Date() : null,
      })
      .returning()) as [AuthUserRow];
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('conflict', 'User already registered', { error_code: 'user_already_exists' });
    throw err;
  }
  if (!link) {
    await svc.db.update(authUsers).set({ lastSignInAt: new Date() }).where(eq(authUsers.id, user.id));
    return issueSession(svc, user.id, 'password');
  }
  await sendAuthMail(svc, { to: email, kind: 'signup', link: verifyLink(svc, link.token, 'signup', input.redirectTo) });
  return presentUser(user);
}

/** `POST /auth/v1/recover`: mails (or logs) a recovery link; answers the same whether the email exists or not. */
export async function recover(svc: Services, input: { email: unknown; redirectTo?: string }): Promise<void> {
  const email = normalizeEmail(input.email);
  const limited = await svc.limiter.limit(`recover:${email}`, RECOVER_PER_EMAIL_PER_HOUR, 3_600_000);
  if (!limited.allowed) {
    const err = overRateLimit(limited, 'For security purposes, you can only request this a few times an hour.');
    throw new AppError(err.code, err.message, { ...err.details, error_code: 'over_email_send_rate_limit' }, err.headers);
  }
  const link = newLinkToken();
  const [user] = await svc.db
    .update(authUsers)
    .set({ recoveryTokenHash: link.hash, recoverySentAt: new Date(), updatedAt: new Date() })
    .where(sql`lower(${authUsers.email}) = ${email}`)
    .returning({ email: authUsers.email });
  if (!user) return;
  await sendAuthMail(svc, { to: user.email, kind: 'recovery', link: verifyLink(svc, link.token, 'recovery', input.redirectTo) });
}

/**
 * `POST /auth/v1/resend` with `type: "signup"`: a new confirmation link for an account whose
 * email is not confirmed yet (the previous link stops working). The answer is the same whether
 * the email exists, is confirmed already or not (no account enumeration); rate-limited per email
 * like recovery. Without SMTP_URL every account is confirmed at sign-up, so nothing is sent.
 */
export async function resendConfirmation(svc: Services, input: { type: unknown; email: unknown; redirectTo?: string }): Promise<void> {
  if (input.type !== 'signup')
    throw new AppError('invalid_request', 'Only signup confirmations can be resent (type: "signup").', {
      error_code: 'validation_failed',
      issues: [{ path: 'type', message: 'Expected signup' }],
    });
  const email = normalizeEmail(input.email);
  const limited = await svc.limiter.limit(`resend:${email}`, RECOVER_PER_EMAIL_PER_HOUR, 3_600_000);
  if (!limited.allowed) {
    const err = overRateLimit(limited, 'For security purposes, you can only request this a few times an hour.');
    throw new AppError(err.code, err.message, { ...err.details, error_code: 'over_email_send_rate_limit' }, err.headers);
  }
  if (!svc.config.smtpUrl) return;
  const link = newLinkToken();
  const [user] = await svc.db
    .update(authUsers)
    .set({ confirmationTokenHash: link.hash, confirmationSentAt: new Date(), updatedAt: new Date() })
    .where(and(sql`lower(${authUsers.email}) = ${email}`, isNull(authUsers.emailConfirmedAt)))
    .returning({ email: authUsers.email });
  if (!user) return;
  await sendAuthMail(svc, { to: user.email, kind: 'signup', link: verifyLink(svc, link.token, 'signup', input.redirectTo) });
}

export type VerifyType = 'signup' | 'email' | 'recovery' | 'magiclink' | 'invite';

export const linkExpired = () => new AppError('unauthorized', 'Email link is invalid or has expired', { error_code: 'otp_expired' });

/**
 * `/auth/v1/verify`: consumes a one-time token from a confirmation (`signup`, `email`) or
 * recovery (`recovery`) link and signs the user in. The token works once; an unknown, used or
 * expired one is 401 `otp_expired`.
 */
export async function verifyToken(
  svc: Services,
  input: { type: unknown; token: unknown },
): Promise<{ session: GoTrueSession; type: VerifyType }> {
  const type = input.type;
  if (typeof input.token !== 'string' || input.token.length === 0 || input.token.length > 200) throw linkExpired();
  const hash = hashToken(input.token);
  const now = new Date();
  if (type === 'recovery' || type === 'magiclink') {
    const [user] = await svc.db
      .update(authUsers)
      .set({ recoveryTokenHash: null, updatedAt: now })
      .where(and(eq(authUsers.recoveryTokenHash, hash), gt(authUsers.recoverySentAt, new Date(now.getTime() - RECOVERY_TTL_MS))))
      .returning();
    if (!user) throw linkExpired();
    // The link reached the mailbox (or the operator's log): the address is the user's.
    if (!user.emailConfirmedAt) await svc.db.update(authUsers).set({ emailConfirmedAt: now }).where(eq(authUsers.id, user.id));
    return { session: await issueSession(svc, user.id, 'recovery'), type: 'recovery' };
  }
  if (type === 'signup' || type === 'email' || type === 'invite') {
    const [user] = await svc.db
      .update(authUsers)
      .set({ confirmationTokenHash: null, emailConfirmedAt: now, updatedAt: now })
      .where(
        and(eq(authUsers.confirmationTokenHash, hash), gt(authUsers.confirmationSentAt, new Date(now.getTime() - CONFIRMATION_TTL_MS))),
      )
      .returning();
    if (!user) throw linkExpired();
    return { session: await issueSession(svc, user.id, 'otp'), type };
  }
  throw new AppError('invalid_request', 'Verify requires a verification type: signup, email or recovery.', {
    error_code: 'validation_failed',
    issues: [{ path: 'type', message: 'Expected signup, email or recovery' }],
  });
}

/** `PUT /auth/v1/user`: a new password (ends the user's other sessions) and/or `data` merged into user_metadata. */
export async function updateUser(
  svc: Services,
  who: { userId: string; sessionId?: string },
  input: { password?: unknown; email?: unknown; data?: unknown },
): Promise<GoTrueUser> {
  const user = await findUserById(svc.db, who.userId);
  if (!user) throw new AppError('unauthorized', 'User from sub claim in JWT does not exist', { error_code: 'user_not_found' });
  const set: Partial<typeof authUsers.$inferInsert> = { updatedAt: new Date() };
  if (input.email !== undefined && input.email !== null && normalizeEmail(input.email) !== user.email.toLowerCase()) {
    throw new AppError('invalid_request', 'Changing the email address is not supported by this identity provider.', {
      error_code: 'email_change_not_supported',
      issues: [{ path: 'email', message: 'Email change is not supported' }],
    });
  }
  if (input.password !== undefined) {
    assertStrongPassword(input.password);
    set.passwordHash = await hashPassword(input.password);
  }
  if (input.data !== undefined) {
    if (!input.data || typeof input.data !== 'object' || Array.isArray(input.data)) {
      throw new AppError('invalid_request', 'data must be an object.', {
        error_code: 'validation_failed',
        issues: [{ path: 'data', message: 'Expected an object' }],
      });
    }
    set.userMetadata = { ...user.userMetadata, ...(input.data as Record<string, unknown>) };
  }
  const [updated] = await svc.db.update(authUsers).set(set).where(eq(authUsers.id, user.id)).returning();
  // A new password ends every other session of the user (as GoTrue does), keeping the caller's.
  if (set.passwordHash) await revokeSessions(svc, user.id, who.sessionId, who.sessionId ? 'others' : 'global');
  return presentUser(updated!);
}

/** A link to `/auth/v1/verify` carrying a one-time token. */
function verifyLink(svc: Services, token: string, type: 'signup' | 'recovery', redirectTo?: string): string {
  const url = new URL(`${svc.config.publicBaseUrl}/auth/v1/verify`);
  url.searchParams.set('token', token);
  url.searchParams.set('type', type);
  const target = safeRedirect(svc, redirectTo);
  if (target) url.searchParams.set('redirect_to', target);
  return url.toString();
}

/** `redirect_to` is honoured only on this service's own origin (an open redirect otherwise). */
export function safeRedirect(svc: Services, redirectTo: string | undefined | null): string | undefined {
  if (!redirectTo) return undefined;
  try {
    const url = new URL(redirectTo, svc.config.publicBaseUrl);
    return url.origin === new URL(svc.config.publicBaseUrl).origin ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
