import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import { webhookSubscriptions } from '../db/schema';
import { notFound } from '../lib/errors';
import { generateWebhookSecret } from '../lib/secrets';
import type { Services } from '../services';
import { presentWebhook } from './present';
import type { RotateSecretInput } from './schema';
import { secretColumns } from './subscriptions';

/**
 * POST /api/v1/webhooks/{id}/rotate-secret: a new secret (given or generated), returned this once.
 * For `overlap_seconds` the current secret keeps signing beside it: every attempt's
 * `webhook-signature` carries both (`v1,<new> v1,<old>`), so receivers can switch at their own
 * pace. Rotating again during an overlap rotates out the current secret (the older one stops).
 * 0 replaces at once, as `PUT {secret}` does.
 */
export async function rotateWebhookSecret(svc: Services, principal: Principal, input: RotateSecretInput) {
  const secret = input.secret ?? generateWebhookSecret();
  const row = await svc.db.transaction(async (tx) => {
    // Locked: two rotations at once must not both rotate out the same secret.
    const [current] = await tx
      .select({ secretEncrypted: webhookSubscriptions.secretEncrypted })
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.tenantId, principal.tenantId)))
      .for('update');
    if (!current) throw notFound('webhook');
    const overlap =
      input.overlap_seconds > 0
        ? {
            // The stored ciphertext moves as is: the old secret is never decrypted here.
            previousSecretEncrypted: current.secretEncrypted,
            previousSecretExpiresAt: new Date(Date.now() + input.overlap_seconds * 1000),
          }
        : {};
    const [updated] = await tx
      .update(webhookSubscriptions)
      .set({
        ...secretColumns(svc, secret),
        ...overlap,
        updatedAt: new Date(),
      })
      .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.tenantId, principal.tenantId)))
      .returning();
    await recordAudit(tx, principal.tenantId, {
      action: 'webhook.secret_rotated',
      target: { type: 'webhook', id: input.id },
      changes: { overlap_seconds: input.overlap_seconds, generated: input.secret === undefined },
    });
    return updated;
  });
  if (!row) throw notFound('webhook');
  return presentWebhook(row, secret);
}
