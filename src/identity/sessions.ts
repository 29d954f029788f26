import { randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, ne } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { authRefreshTokens, authSessions, authUsers } from '../db/schema';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { identityKeys } from './keys';
import { findUserById, hashToken, presentUser, type GoTrueUser } from './users';

/** Access tokens live one hour (GoTrue's default `jwt_exp`). */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * A rotated refresh token presented again within this many seconds of its rotation is a
 * concurrent refresh (two tabs, a retried request), not theft: it gets a fresh token of the same
 * session. Later, it revokes the whole session (GoTrue's `refresh_token_reuse_interval`, 10 s).
 */
export const REFRESH_REUSE_INTERVAL_MS = 10_000;

/** How long an instance may trust its memory of a session not being revoked (logout bound). */
export const REVOCATION_CACHE_MS = 5_000;

export type AuthMethod = 'password' | 'recovery' | 'otp' | 'passkey';

/** The session object of GoTrue's token, verify and signup answers. */
export interface GoTrueSession {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: GoTrueUser;
}

const refreshNotFound = () =>
  new AppError('invalid_request', 'Invalid Refresh Token: Refresh Token Not Found', { error_code: 'refresh_token_not_found' });
const refreshReused = () =>
  new AppError('invalid_request', 'Invalid Refresh Token: Already Used', { error_code: 'refresh_token_already_used' });

const newRefreshToken = () => randomBytes(24).toString('base64url');

/** Starts a session for the user (a new refresh-token family) and returns it in GoTrue's shape. */
export async function issueSession(svc: Services, userId: string, method: AuthMethod = 'password'): Promise<GoTrueSession> {
  const refreshToken = newRefreshToken();
  const sessionId = await svc.db.transaction(async (tx) => {
    const [session] = await tx.insert(authSessions).values({ userId }).returning({ id: authSessions.id });
    await tx.insert(authRefreshTokens).values({ sessionId: session!.id, tokenHash: hashToken(refreshToken) });
    return session!.id;
  });
  return sessionAnswer(svc, userId, sessionId, refreshToken, method);
}

async function sessionAnswer(
  svc: Services,
  userId: string,
  sessionId: string,
  refreshToken: string,
  method: AuthMethod,
): Promise<GoTrueSession> {
  const user = await findUserById(svc.db, userId);
  if (!user) throw refreshNotFound();
  const presented = presentUser(user);
  const now = Math.floor(Date.now() / 1000);
  const keys = identityKeys(svc);
  const accessToken = await new SignJWT({
    email: user.email,
    phone: '',
    app_metadata: presented.app_metadata,
    user_metadata: presented.user_metadata,
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method, timestamp: now }],
    session_id: sessionId,
    is_anonymous: false,
  })
    .setProtectedHeader({ alg: 'ES256', kid: keys.kid, typ: 'JWT' })
    .setIssuer(keys.issuer)
    .setSubject(user.id)
    .setAudience('authenticated')
    .setIssuedAt(now)
    .setExpirationTime(now + ACCESS_TOKEN_TTL_SECONDS)
    .sign(keys.privateKey);
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    expires_at: now + ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
    user: presented,
  };
}

/**
 * `grant_type=refresh_token`: exchanges a refresh token for a new one (rotation) and a new access
 * token. A rotated token presented again after REFRESH_REUSE_INTERVAL_MS revokes its session: every
 * token of the family stops working, and so do the session's access tokens (within REVOCATION_CACHE_MS).
 */
export async function refreshSession(svc: Services, refreshToken: unknown): Promise<GoTrueSession> {
  if (typeof refreshToken !== 'string' || refreshToken.length === 0 || refreshToken.length > 200) throw refreshNotFound();
  const next = newRefreshToken();
  const outcome = await svc.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ token: authRefreshTokens, session: authSessions })
      .from(authRefreshTokens)
      .innerJoin(authSessions, eq(authSessions.id, authRefreshTokens.sessionId))
      .where(eq(authRefreshTokens.tokenHash, hashToken(refreshToken)))
      .for('update')
      .limit(1);
    if (!row) return { error: refreshNotFound() };
    if (row.session.revokedAt) return { error: refreshReused() };
    if (row.token.revoked) {
      if (Date.now() - row.token.updatedAt.getTime() > REFRESH_REUSE_INTERVAL_MS) {
        // Reuse of a rotated token: someone else may hold the family. End the session.
        await tx.update(authSessions).set({ revokedAt: new Date(), updatedAt: new Date() }).where(eq(authSessions.id, row.session.id));
        await tx.update(authRefreshTokens).set({ revoked: true }).where(eq(authRefreshTokens.sessionId, row.session.id));
        return { error: refreshReused(), revoked: row.session.id };
      }
    } else {
      await tx.update(authRefreshTokens).set({ revoked: true, updatedAt: new Date() }).where(eq(authRefreshTokens.id, row.token.id));
    }
    await tx.insert(authRefreshTokens).values({ sessionId: row.session.id, tokenHash: hashToken(next) });
    await tx.update(authSessions).set({ updatedAt: new Date() }).where(eq(authSessions.id, row.session.id));
    return { userId: row.session.userId, sessionId: row.session.id };
  });
  if ('error' in outcome) {
    if (outcome.revoked) {
      rememberRevoked(outcome.revoked);
      svc.logger.warn({ session_id: outcome.revoked }, 'a rotated refresh token was reused: its session is revoked');
    }
    throw outcome.error;
  }
  return sessionAnswer(svc, outcome.userId, outcome.sessionId, next, 'password');
}

export type LogoutScope = 'global' | 'local' | 'others';

/** Ends sessions of the user: this one (`local`), all (`global`, GoTrue's default) or all but this one. */
export async function revokeSessions(svc: Services, userId: string, sessionId: string | undefined, scope: LogoutScope): Promise<void> {
  const where =
    scope === 'local'
      ? sessionId
        ? eq(authSessions.id, sessionId)
        : undefined
      : scope === 'others' && sessionId
        ? and(eq(authSessions.userId, userId), ne(authSessions.id, sessionId))
        : eq(authSessions.userId, userId);
  if (!where) return;
  const ended = await svc.db
    .update(authSessions)
    .set({ revokedAt: new Date(), updatedAt: new Date() })
    .where(and(where, isNull(authSessions.revokedAt)))
    .returning({ id: authSessions.id });
  if (ended.length === 0) return;
  const ids = ended.map((s) => s.id);
  await svc.db.update(authRefreshTokens).set({ revoked: true }).where(inArray(authRefreshTokens.sessionId, ids));
  for (const id of ids) rememberRevoked(id);
}

const known = new Map<string, { revoked: boolean; at: number }>();

function rememberRevoked(sessionId: string): void {
  known.set(sessionId, { revoked: true, at: Date.now() });
}

/**
 * Whether the session of a built-in access token has ended (sign-out, refresh-token reuse). Read
 * from the database and remembered for REVOCATION_CACHE_MS: a session ended on another instance
 * stops working here within that bound; one ended on this instance at once.
 */
export async function isSessionRevoked(svc: Services, sessionId: string): Promise<boolean> {
  const now = Date.now();
  const hit = known.get(sessionId);
  if (hit && (hit.revoked || now - hit.at < REVOCATION_CACHE_MS)) return hit.revoked;
  if (!/^[0-9a-f-]{36}$/i.test(sessionId)) return true;
  const [row] = await svc.db
    .select({ revokedAt: authSessions.revokedAt })
    .from(authSessions)
    .where(eq(authSessions.id, sessionId))
    .limit(1);
  const revoked = !row || row.revokedAt !== null;
  if (known.size > 50_000) {
    for (const [id, v] of known) if (now - v.at >= REVOCATION_CACHE_MS) known.delete(id);
  }
  known.set(sessionId, { revoked, at: now });
  return revoked;
}

/** Records a sign-in on the user row. */
export async function touchSignIn(svc: Services, userId: string): Promise<void> {
  await svc.db.update(authUsers).set({ lastSignInAt: new Date() }).where(eq(authUsers.id, userId));
}
