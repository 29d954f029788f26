import { AppError } from '../lib/errors';
import type { LimitResult } from '../metering/limiter';
import { rateLimitHeaders } from '../metering/requests';
import type { Services } from '../services';
import { dummyHash, verifyPassword } from './passwords';
import { touchSignIn } from './sessions';
import { findUserByEmail, normalizeEmail } from './users';

export { issueSession } from './sessions';

/** Sign-in attempts per email address and per client IP, each per minute (any outcome counts). */
/** Per email, per minute; per client IP the limit is SIGN_IN_LIMIT_PER_MINUTE (default 30). */
export const SIGN_IN_LIMITS = { perEmail: 10, windowMs: 60_000 };

export interface SignInInput {
  email: unknown;
  password: unknown;
  ip: string;
}

export interface SignedInUser {
  user: { id: string; email: string; emailConfirmedAt: Date | null };
}

const invalidCredentials = () => new AppError('invalid_request', 'Invalid login credentials', { error_code: 'invalid_credentials' });

/** GoTrue's `over_request_rate_limit`, with Retry-After and the limiter's headers. */
export function overRateLimit(result: LimitResult, message: string): AppError {
  return new AppError(
    'rate_limit_exceeded',
    message,
    {
      error_code: 'over_request_rate_limit',
      retry_after: result.retryAfterSeconds,
      limit: result.limit,
      reset_at: new Date(result.resetAt).toISOString(),
    },
    { ...rateLimitHeaders({ ...result, remaining: 0 }), 'Retry-After': String(result.retryAfterSeconds) },
  );
}

/**
 * Checks an email and password against the built-in provider (the password grant, the dashboard's
 * and the OAuth sign-in pages). Limited per email and per IP (429); an unknown email costs the same
 * scrypt work as a wrong password (400 `invalid_credentials` either way); with SMTP_URL set, an
 * unconfirmed email is 400 `email_not_confirmed`.
 */
export async function signInWithPassword(svc: Services, input: SignInInput): Promise<SignedInUser> {
  const email = normalizeEmail(input.email);
  const password = typeof input.password === 'string' ? input.password : '';
  const { perEmail, windowMs } = SIGN_IN_LIMITS;
  const [byIp, byEmail] = await Promise.all([
    svc.limiter.limit(`signin:ip:${input.ip}`, svc.config.signInLimitPerMinute, windowMs),
    svc.limiter.limit(`signin:email:${email}`, perEmail, windowMs),
  ]);
  for (const result of [byEmail, byIp]) {
    if (!result.allowed) throw overRateLimit(result, 'Too many sign-in attempts; retry after the indicated number of seconds.');
  }
  const user = await findUserByEmail(svc.db, email);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash()));
  if (!user || !ok) throw invalidCredentials();
  if (!user.emailConfirmedAt) throw new AppError('invalid_request', 'Email not confirmed', { error_code: 'email_not_confirmed' });
  await touchSignIn(svc, user.id);
  return { user: { id: user.id, email: user.email, emailConfirmedAt: user.emailConfirmedAt } };
}
