/**
 * oidc-provider's storage adapter over the `oauth_store` table (one row per model instance:
 * sessions, interactions, authorization codes, access and refresh tokens, grants, registered
 * clients). Works on PGlite and PostgreSQL alike (plain SQL through Drizzle). Rows past their
 * `expires_at` are never returned; maintenance may delete them at leisure (`purgeExpiredOAuth`).
 */
import { and, eq, isNull, lt, or, gt, sql } from 'drizzle-orm';
import type { Db } from '../db';
import { oauthStore } from '../db/schema';

/** The payload oidc-provider hands to `upsert` (see its adapter interface). */
export type AdapterPayload = Record<string, unknown> & {
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: number;
};

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

/** The adapter constructor oidc-provider instantiates once per model (`new Adapter('AccessToken')`). */
export function oauthAdapter(db: Db): new (model: string) => OAuthAdapter {
  return class DrizzleOAuthAdapter implements OAuthAdapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      const row = {
        payload,
        grantId: typeof payload.grantId === 'string' ? payload.grantId : null,
        userCode: typeof payload.userCode === 'string' ? payload.userCode : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        expiresAt,
      };
      await db
        .insert(oauthStore)
        .values({ model: this.model, id, ...row })
        .onConflictDoUpdate({ target: [oauthStore.model, oauthStore.id], set: { ...row, consumedAt: null } });
    }

    private async findWhere(key: string, where: ReturnType<typeof eq>): Promise<AdapterPayload | undefined> {
      if (!storable(key)) return undefined;
      const [row] = await db
        .select({ payload: oauthStore.payload, consumedAt: oauthStore.consumedAt })
        .from(oauthStore)
        .where(and(eq(oauthStore.model, this.model), where, live()))
        .limit(1);
      if (!row) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }

    find(id: string) {
      return this.findWhere(id, eq(oauthStore.id, id));
    }

    findByUserCode(userCode: string) {
      return this.findWhere(userCode, eq(oauthStore.userCode, userCode));
    }

    findByUid(uid: string) {
      return this.findWhere(uid, eq(oauthStore.uid, uid));
    }

    async consume(id: string): Promise<void> {
      if (!storable(id)) return;
      await db
        .update(oauthStore)
        .set({ consumedAt: new Date() })
        .where(and(eq(oauthStore.model, this.model), eq(oauthStore.id, id)));
    }

    async destroy(id: string): Promise<void> {
      if (!storable(id)) return;
      await db.delete(oauthStore).where(and(eq(oauthStore.model, this.model), eq(oauthStore.id, id)));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // Every artifact of the grant (codes, access and refresh tokens), whatever its model.
      await db.delete(oauthStore).where(eq(oauthStore.grantId, grantId));
    }
  };
}

/** Deletes rows expired for more than a minute; returns how many. */
export async function purgeExpiredOAuth(db: Db): Promise<number> {
  const deleted = await db
    .delete(oauthStore)
    .where(lt(oauthStore.expiresAt, sql`now() - interval '1 minute'`))
    .returning({ id: oauthStore.id });
  return deleted.length;
}
