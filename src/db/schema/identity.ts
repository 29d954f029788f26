import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

/** Users of the built-in identity provider (a subset of Supabase Auth, served at /auth/v1/*). */
export const authUsers = pgTable(
  'auth_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    /** scrypt hash with its parameters and salt (src/identity/passwords.ts); never returned. */
    passwordHash: text('password_hash').notNull(),
    emailConfirmedAt: timestamp('email_confirmed_at', { withTimezone: true, mode: 'date' }),
    /** SHA-256 of the pending confirmation token (mail sign-up with SMTP_URL). */
    confirmationTokenHash: text('confirmation_token_hash'),
    confirmationSentAt: timestamp('confirmation_sent_at', { withTimezone: true, mode: 'date' }),
    /** SHA-256 of the pending recovery token. */
    recoveryTokenHash: text('recovery_token_hash'),
    recoverySentAt: timestamp('recovery_sent_at', { withTimezone: true, mode: 'date' }),
    userMetadata: jsonb('user_metadata').$type<Record<string, unknown>>().notNull().default({}),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('auth_users_email_lower_idx').on(sql`lower(${t.email})`),
    uniqueIndex('auth_users_confirmation_idx').on(t.confirmationTokenHash),
    uniqueIndex('auth_users_recovery_idx').on(t.recoveryTokenHash),
  ],
);

export type AuthUserRow = typeof authUsers.$inferSelect;

/** A sign-in session: the family its rotating refresh tokens belong to. */
export const authSessions = pgTable(
  'auth_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => authUsers.id, { onDelete: 'cascade' }),
    /** Set when the session ends: sign-out, or reuse of a rotated refresh token (the family is revoked). */
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);

/** Refresh tokens; each use rotates to a new one, and presenting a rotated one revokes its session. */
export const authRefreshTokens = pgTable(
  'auth_refresh_tokens',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => authSessions.id, { onDelete: 'cascade' }),
    /** SHA-256 (hex) of the token. */
    tokenHash: text('token_hash').notNull().unique(),
    /** Rotated: it was exchanged for a newer token. */
    revoked: boolean('revoked').notNull().default(false),
    ...timestamps,
  },
  (t) => [index('auth_refresh_tokens_session_idx').on(t.sessionId)],
);

/** Passkeys (WebAuthn credentials) of built-in users: a second way to sign in beside the password. */
export const authPasskeys = pgTable(
  'auth_passkeys',
  {
    /** The credential id (base64url), as the authenticator names it. */
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => authUsers.id, { onDelete: 'cascade' }),
    /** The COSE public key, base64url. Public: a passkey's secret never leaves its authenticator. */
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    deviceType: text('device_type').notNull(),
    backedUp: boolean('backed_up').notNull().default(false),
    name: text('name').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [index('auth_passkeys_user_idx').on(t.userId)],
);

export type AuthPasskeyRow = typeof authPasskeys.$inferSelect;

/** WebAuthn challenges handed out and not yet answered: single-use, for a few minutes. */
export const authChallenges = pgTable(
  'auth_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The user registering a passkey; null for a sign-in (the passkey names its user). */
    userId: uuid('user_id').references(() => authUsers.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['registration', 'authentication'] }).notNull(),
    challenge: text('challenge').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('auth_challenges_expires_idx').on(t.expiresAt)],
);

/** oidc-provider's storage (its adapter interface): one row per model instance. */
export const oauthStore = pgTable(
  'oauth_store',
  {
    model: text('model').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    userCode: text('user_code'),
    uid: text('uid'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.id] }),
    index('oauth_store_grant_idx').on(t.grantId),
    index('oauth_store_uid_idx').on(t.uid),
    index('oauth_store_user_code_idx').on(t.userCode),
    index('oauth_store_expires_idx').on(t.expiresAt),
  ],
);
