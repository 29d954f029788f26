import type { Principal } from '../auth/principal';
import type { Executor } from '../db';
import { auditLog } from '../db/schema';
import { newTimeOrderedId } from '../lib/ids';
import { requestScope } from './request';

/** Who did it, as the audit log names them. */
export interface AuditActor {
  type: 'user' | 'key' | 'operator' | 'system';
  id: string;
  email?: string | null;
  keyId?: string | null;
}

export interface AuditEntry {
  /** `<resource>.<verb>`, from the list in docs/organizations.md (e.g. `key.created`). */
  action: string;
  target: { type: string; id: string };
  /** A summary of what changed (field names and new values, never a secret). */
  changes?: Record<string, unknown>;
}

export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: 'system' };

/** The actor a principal stands for: the signed-in member, or the API key. */
export function principalActor(principal: Principal): AuditActor {
  if (principal.member) return { type: 'user', id: principal.member.userId, email: principal.member.email };
  if (principal.keyId) return { type: 'key', id: principal.keyId, keyId: principal.keyId };
  return SYSTEM_ACTOR;
}

/** The actor of the request being served: its operator, member or key; the system outside a request. */
export function currentActor(): AuditActor {
  const scope = requestScope();
  if (scope?.operator) return { type: 'operator', id: scope.operator.email ?? 'admin_token', email: scope.operator.email };
  if (scope?.principal) return principalActor(scope.principal);
  return SYSTEM_ACTOR;
}

/**
 * Writes one audit entry with `db` (the transaction of the change it records, so it exists
 * exactly when the change does). The request's ip, user agent and id come from its scope;
 * `tenantId` null is an operator action on no tenant.
 */
export async function recordAudit(
  db: Executor,
  tenantId: string | null,
  entry: AuditEntry,
  actor: AuditActor = currentActor(),
): Promise<void> {
  const scope = requestScope();
  await db.insert(auditLog).values({
    id: newTimeOrderedId('aud'),
    tenantId,
    // The service's clock in milliseconds, as cursors spell it (a database default has microseconds).
    at: new Date(),
    actorType: actor.type,
    actorId: actor.id,
    actorEmail: actor.email ?? null,
    actorKeyId: actor.keyId ?? null,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    // An IPv4 client on a dual-stack socket arrives as ::ffff:a.b.c.d: kept as the IPv4 address it is.
    ip: scope?.ip?.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') ?? null,
    userAgent: scope?.userAgent?.slice(0, 512) ?? null,
    requestId: scope?.requestId ?? null,
    changes: entry.changes ?? {},
  });
}
