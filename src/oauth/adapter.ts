/**
 * oidc-provider's storage adapter over the `oauth_store` table (one row per model instance:
 * sessions, interactions, authorization codes, access and refresh tokens, grants, registered
 * clients). Works on PGlite and PostgreSQL alike (plain SQL through Drizzle). Rows past their
 * `expires_at` are never returned; maintenance may delete them at leisure (`purgeExpiredOAuth`).
 *
 * Nothing secret is stored as it is. An opaque artifact's id is its value (a refresh token, an
 * authorization code, a session cookie), so ids and the other lookup keys (grant id, uid, user
 * code) are kept as their SHA-256 (`storedKey`), as API keys are; payloads (a client's
 * `client_secret`, token claims) are encrypted under ENCRYPTION_KEY (src/lib/secrets.ts), stored
 * as a JSON string. A payload written before (an object) is still read, and re-encrypted at
 * start-up (`sealOAuthPayloads`); migration 0014 hashed the keys written before.
 *
 * Registered clients expire when unused (`CLIENT_UNUSED_TTL_SECONDS`).
 */
import { and, eq, isNull, lt, or, gt, sql } from 'drizzle-orm';
import type { Db } from '../db';
import { oauthStore } from '../db/schema';
import { hashToken } from '../identity/users';
import { decryptSecret, encryptSecret } from '../lib/secrets';

/** The payload oidc-provider hands to `upsert` (see its adapter interface). */
export type AdapterPayload = Record<string, unknown> & {
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: number;
};

/**
 * Registered clients expire unless used: a client is kept for `CLIENT_UNUSED_TTL_SECONDS.registered`
 * after its registration, and for `.used` after each authorization it takes part in (an
 * authorization code, a grant or a refresh token issued to it). Anyone may register a client, so
 * those never used are not kept for ever; the hourly purge deletes the expired rows.
 */
export const CLIENT_UNUSED_TTL_SECONDS = { registered: 24 * 3600, used: 30 * 24 * 3600 } as const;

/** The artifacts that mean their client is in use. */
const CLIENT_USES = new Set(['AuthorizationCode', 'Grant', 'RefreshToken']);

/** The methods oidc-provider calls on an adapter instance (one instance per model name). */
export interface OAuthAdapter {
  upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
  find(id: string): Promise<AdapterPayload | undefined>;
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
  findByUid(uid: string): Promise<AdapterPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** PostgreSQL text cannot hold NUL: an id or code with one (from a client's request) is no row's. */
const storable = (key: string) => !key.includes('\u0000');

const live = () => or(isNull(oauthStore.expiresAt), gt(oauthStore.expiresAt, sql`now()`));

/**
 * How an id or lookup key is stored: its SHA-256, hex, as the identity provider stores its tokens
 * (and as migration 0014 computes it in SQL).
 */
export const storedKey = hashToken;

const storedKeyOrNull = (value: unknown) => (typeof value === 'string' ? storedKey(value) : null);

/** A payload as stored: encrypted JSON (a JSON string in the jsonb column). */
function sealPayload(key: Buffer, payload: AdapterPayload): string {
  return encryptSecret(key, JSON.stringify(payload));
}

/** A stored payload: encrypted (a string), or an object written before payloads were encrypted. */
function openPayload(key: Buffer, stored: unknown): AdapterPayload {
  return typeof stored === 'string' ? (JSON.parse(decryptSecret(key, stored)) as AdapterPayload) : (stored as AdapterPayload);
}

/** The adapter constructor oidc-provider instantiates once per model (`new Adapter('AccessToken')`). */
export function oauthAdapter(db: Db, encryptionKey: Buffer): new (model: string) => OAuthAdapter {
  /** A registered client in use is kept `CLIENT_UNUSED_TTL_SECONDS.used` from now. */
  async function keepClient(clientId: string): Promise<void> {
    if (!storable(clientId)) return;
    await db
      .update(oauthStore)
      .set({ expiresAt: new Date(Date.now() + CLIENT_UNUSED_TTL_SECONDS.used * 1000) })
      .where(and(eq(oauthStore.model, 'Client'), eq(oauthStore.id, storedKey(clientId)), live()));
  }

  return class DrizzleOAuthAdapter implements OAuthAdapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
      const lifetime = expiresIn || (this.model === 'Client' ? CLIENT_UNUSED_TTL_SECONDS.registered : undefined);
      const expiresAt = lifetime ? new Date(Date.now() + lifetime * 1000) : null;
      const row = {
        payload: sealPayload(encryptionKey, payload) as unknown as Record<string, unknown>,
        grantId: storedKeyOrNull(payload.grantId),
        userCode: storedKeyOrNull(payload.userCode),
        uid: storedKeyOrNull(payload.uid),
        expiresAt,
      };
      await db
        .insert(oauthStore)
        .values({ model: this.model, id: storedKey(id), ...row })
        .onConflictDoUpdate({ target: [oauthStore.model, oauthStore.id], set: { ...row, consumedAt: null } });
      if (CLIENT_USES.has(this.model) && typeof payload.clientId === 'string') await keepClient(payload.clientId);
    }

    private async findWhere(key: string, where: ReturnType<typeof eq>): Promise<AdapterPayload | undefined> {
      if (!storable(key)) return undefined;
      const [row] = await db
        .select({ payload: oauthStore.payload, consumedAt: oauthStore.consumedAt })
        .from(oauthStore)
        .where(and(eq(oauthStore.model, this.model), where, live()))
        .limit(1);
      if (!row) return undefined;
      const payload = openPayload(encryptionKey, row.payload);
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }

    find(id: string) {
      return this.findWhere(id, eq(oauthStore.id, storedKey(id)));
    }

    findByUserCode(userCode: string) {
      return this.findWhere(userCode, eq(oauthStore.userCode, storedKey(userCode)));
    }

    findByUid(uid: string) {
      return this.findWhere(uid, eq(oauthStore.uid, storedKey(uid)));
    }

    async consume(id: string): Promise<void> {
      if (!storable(id)) return;
      await db
        .update(oauthStore)
        .set({ consumedAt: new Date() })
        .where(and(eq(oauthStore.model, this.model), eq(oauthStore.id, storedKey(id))));
    }

    async destroy(id: string): Promise<void> {
      if (!storable(id)) return;
      await db.delete(oauthStore).where(and(eq(oauthStore.model, this.model), eq(oauthStore.id, storedKey(id))));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // Every artifact of the grant (codes, access and refresh tokens), whatever its model.
      await db.delete(oauthStore).where(eq(oauthStore.grantId, storedKey(grantId)));
    }
  };
}

/**
 * Encrypts the payloads written before payloads were encrypted (objects); returns how many.
 * Run at start-up: safe on several instances at once (each row is sealed only while it is an object).
 */
export async function sealOAuthPayloads(db: Db, encryptionKey: Buffer): Promise<number> {
  const legacy = await db
    .select({ model: oauthStore.model, id: oauthStore.id, payload: oauthStore.payload })
    .from(oauthStore)
    .where(sql`jsonb_typeof(${oauthStore.payload}) = 'object'`);
  for (const row of legacy) {
    await db
      .update(oauthStore)
      .set({ payload: sealPayload(encryptionKey, row.payload as AdapterPayload) as unknown as Record<string, unknown> })
      .where(and(eq(oauthStore.model, row.model), eq(oauthStore.id, row.id), sql`jsonb_typeof(${oauthStore.payload}) = 'object'`));
  }
  return legacy.length;
}

/** Deletes rows expired for more than a minute; returns how many. */
export async function purgeExpiredOAuth(db: Db): Promise<number> {
  const deleted = await db
    .delete(oauthStore)
    .where(lt(oauthStore.expiresAt, sql`now() - interval '1 minute'`))
    .returning({ id: oauthStore.id });
  return deleted.length;
}
