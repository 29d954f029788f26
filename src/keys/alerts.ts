/**
 * The mails of a key's caps (docs/policies.md): when a key's count first reaches 80% of a cap in a
 * cycle, and when it reaches the cap, the tenant's owner gets one mail each (logged instead
 * without SMTP_URL). The job is created in the transaction that reserved the execution which
 * crossed the mark, beside its `key.limit_*` event: it exists exactly when they do, and survives a
 * restart.
 */
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../db';
import { jobsDb } from '../db/job-tx';
import { apiKeys, tenants } from '../db/schema';
import { escapeHtml, sendMail } from '../lib/mail';
import type { Services } from '../services';
import type { CapName } from './policy-rules';

export const KEY_ALERT_QUEUE = 'key-alert';
/** A refused or unreachable SMTP server is tried again 1, 2, 4, 8 and 16 minutes later. */
export const KEY_ALERT_QUEUE_OPTIONS = { retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 };

export interface KeyAlertJob {
  kind: 'approaching' | 'exceeded';
  tenantId: string;
  keyId: string;
  limit: CapName;
  used: number | string;
  cap: number | string;
  periodEnd: string;
}

export async function queueKeyAlert(svc: Services, tx: Tx, alert: KeyAlertJob): Promise<void> {
  const id = await svc.boss.send(KEY_ALERT_QUEUE, alert, { db: jobsDb(tx) });
  if (!id) throw new Error(`pg-boss did not create a job on queue ${KEY_ALERT_QUEUE}`);
}

/** Mails the alert to the tenant's owner, or logs it without SMTP_URL; nothing for a tenant or key deleted meanwhile. */
export async function sendKeyAlert(svc: Services, alert: KeyAlertJob): Promise<'mailed' | 'logged' | 'gone'> {
  const [row] = await svc.db
    .select({ email: tenants.ownerEmail, keyName: apiKeys.name })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(and(eq(apiKeys.id, alert.keyId), eq(apiKeys.tenantId, alert.tenantId)));
  if (!row) return 'gone';
  const mail = keyAlertMail(svc.config.publicBaseUrl, row.email, row.keyName, alert);
  if (await sendMail(svc.config, mail)) return 'mailed';
  svc.logger.warn(
    { email: row.email, key_id: alert.keyId, alert: alert.kind, limit: alert.limit, used: alert.used, cap: alert.cap },
    `API key limit ${alert.kind} alert (SMTP_URL is not set, so it is logged for the operator instead of mailed)`,
  );
  return 'logged';
}

export function keyAlertMail(publicBaseUrl: string, to: string, keyName: string, alert: KeyAlertJob) {
  const page = `${publicBaseUrl}/dashboard/keys`;
  const amount = (value: number | string) => (alert.limit === 'spend_cap_usd' ? `${value} USD` : `${value} executions`);
  const resumes = new Date(alert.periodEnd).toUTCString();
  const lines =
    alert.kind === 'approaching'
      ? {
          subject: `API key "${keyName}" is near its limit`,
          paragraphs: [
            `Your API key "${keyName}" has used ${amount(alert.used)} of the ${amount(alert.cap)} its policy allows this billing cycle.`,
            `When it reaches the limit, its calls are refused until the cycle ends (${resumes}). You can raise the limit on the keys page.`,
          ],
        }
      : {
          subject: `API key "${keyName}" reached its limit`,
          paragraphs: [
            `Your API key "${keyName}" has used the ${amount(alert.cap)} its policy allows this billing cycle. Its further calls are refused until the cycle ends (${resumes}).`,
            'To let it run again now, raise or remove the limit on the keys page. Your other keys are not affected.',
          ],
        };
  const text = `${lines.paragraphs.join('\n\n')}\n\n${page}\n`;
  const html = `${lines.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}<p><a href="${escapeHtml(page)}">${escapeHtml(page)}</a></p>`;
  return { to, subject: lines.subject, text, html };
}
