import { and, inArray, isNotNull, isNull, lte, or } from 'drizzle-orm';
import type { Executor } from '../db';
import { webhookSubscriptions, type WebhookSubscriptionRow } from '../db/schema';
import { decryptSecret } from '../lib/secrets';

type SecretColumns = Pick<WebhookSubscriptionRow, 'secretEncrypted' | 'previousSecretEncrypted' | 'previousSecretExpiresAt'>;

export interface SigningSecrets {
  secret: string;
  /** The rotated-out secret while its overlap lasts; null otherwise. */
  previousSecret: string | null;
  /** True when a rotated-out secret is stored past its overlap: clearExpiredPreviousSecrets removes it. */
  previousExpired: boolean;
}

/**
 * The secrets that sign a subscription's requests now (docs/webhooks.md, Rotating the secret).
 * Throws SecretDecryptionError when the current secret cannot be read (ENCRYPTION_KEY changed);
 * a previous secret that cannot be read is left out (the current one still signs).
 */
export function signingSecrets(key: Buffer, row: SecretColumns, now = Date.now()): SigningSecrets {
  const secret = decryptSecret(key, row.secretEncrypted);
  const stored = row.previousSecretEncrypted;
  const expiresAt = row.previousSecretExpiresAt?.getTime() ?? 0;
  if (stored === null) return { secret, previousSecret: null, previousExpired: false };
  if (expiresAt <= now) return { secret, previousSecret: null, previousExpired: true };
  try {
    return { secret, previousSecret: decryptSecret(key, stored), previousExpired: false };
  } catch {
    return { secret, previousSecret: null, previousExpired: false };
  }
}

/**
 * Forgets rotated-out secrets whose overlap ended (lazily: when an attempt, a test send or the
 * hourly retention finds them), so an old secret is not kept encrypted at rest longer than it signs.
 * `ids`: only these subscriptions; absent: all.
 */
export async function clearExpiredPreviousSecrets(db: Executor, ids?: string[]): Promise<void> {
  if (ids && ids.length === 0) return;
  const s = webhookSubscriptions;
  await db
    .update(s)
    .set({ previousSecretEncrypted: null, previousSecretExpiresAt: null })
    .where(
      and(
        ids ? inArray(s.id, ids) : undefined,
        isNotNull(s.previousSecretEncrypted),
        or(isNull(s.previousSecretExpiresAt), lte(s.previousSecretExpiresAt, new Date())),
      ),
    );
}
