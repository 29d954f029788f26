import { and, asc, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Executor } from '../db';
import { apiKeys, planChanges, tenants, webhookSubscriptions, type TenantRow } from '../db/schema';
import type { TermsSnapshot } from '../db/schema/billing';
import { invalidRequest, notFound } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Services } from '../services';
import { effectiveTerms, isSelfServe, planAllows, type Plan } from '../tenants/plans';
import { presentTenant, presentTerms, rowOverrides } from '../tenants/present';
import { sameTerms, termsSnapshot } from './terms';

/**
 * The new plan and per-tenant terms. For each override: absent (undefined) keeps the tenant's
 * current value (a tenant's own move to another plan clears it instead), `null` clears it back to
 * the plan's value, a number sets it.
 */
export interface PlanChangeRequest {
  plan: Plan;
  requestsPerMinute?: number | null;
  executionsPerMonth?: number | null;
  overageUnitMicroUsd?: number | null;
  monthlyFeeMicroUsd?: number | null;
}

export type PlanChangeActor = 'tenant' | 'admin';

export interface Affected {
  keys: string[];
  webhooks: string[];
}

export interface PlanChangeResult {
  tenant: TenantRow;
  previousPlan: Plan;
  /** False when plan and terms were already these: nothing was recorded. */
  changed: boolean;
  effectiveAt: Date;
  suspended: Affected;
  restored: Affected;
}

/**
 * The one service behind `PUT /api/v1/billing/plan` (actor `tenant`) and the admin plan endpoint
 * (actor `admin`). In one transaction: locks the tenant row, updates plan and overrides, records
 * the change in `plan_changes` (from/to terms, for proration and usage; only when something
 * changed), and applies the new plan's allowance:
 * - keys: below the plan that allows several keys, the primary key (or, without one, the oldest
 *   active key) keeps working and every other active key is suspended (refused with 403
 *   `plan_required`); a plan that allows several keys clears every suspension;
 * - webhooks: below the plan that has webhooks, every subscription is suspended (nothing is
 *   delivered to it, its pending deliveries are cancelled when their turn comes); a plan with
 *   webhooks clears every suspension.
 * The allowance is applied on every call, so it also repairs a tenant whose rows disagree with
 * its plan. Upgrades and downgrades apply at once: the key cache of every instance is
 * invalidated before this returns, so the next request anywhere sees the new terms and keys.
 */
export async function changePlan(
  svc: Services,
  tenantId: string,
  request: PlanChangeRequest,
  actor: PlanChangeActor,
): Promise<PlanChangeResult> {
  const now = new Date();
  const result = await svc.db.transaction(async (tx) => {
    const [current] = await tx.select().from(tenants).where(eq(tenants.id, tenantId)).for('update');
    if (!current) throw notFound('tenant');
    if (actor === 'tenant' && (!isSelfServe(request.plan) || !isSelfServe(current.plan))) throw enterpriseByOperator();
    const from = termsSnapshot(current);
    // A tenant moving itself to another plan gets that plan's standard terms: per-tenant terms
    // were agreed with an operator for the plan they were set on (a contract fee must not follow
    // a tenant down to free). An operator's change keeps what it leaves out.
    const keep = actor === 'admin' || request.plan === current.plan;
    const next = <T>(asked: T | undefined, held: T | null): T | null => (asked === undefined ? (keep ? held : null) : asked);
    const to: TermsSnapshot = {
      plan: request.plan,
      requests_per_minute: next(request.requestsPerMinute, from.requests_per_minute),
      executions_per_month: next(request.executionsPerMonth, from.executions_per_month),
      overage_unit_micro_usd: next(request.overageUnitMicroUsd, from.overage_unit_micro_usd),
      monthly_fee_micro_usd: next(request.monthlyFeeMicroUsd, from.monthly_fee_micro_usd),
    };
    const changed = !sameTerms(from, to);
    let tenant = current;
    if (changed) {
      const [updated] = await tx
        .update(tenants)
        .set({
          plan: to.plan,
          requestsPerMinute: to.requests_per_minute,
          executionsPerMonth: to.executions_per_month,
          overageUnitMicroUsd: to.overage_unit_micro_usd,
          monthlyFeeMicroUsd: to.monthly_fee_micro_usd,
          updatedAt: now,
        })
        .where(eq(tenants.id, tenantId))
        .returning();
      tenant = updated!;
      await tx.insert(planChanges).values({ id: newId('pch'), tenantId, fromTerms: from, toTerms: to, actor, changedAt: now });
      // A tenant's own change names its plans; an operator's, the whole terms (plan and overrides).
      if (actor === 'tenant')
        await recordAudit(tx, tenantId, {
          action: 'plan.changed',
          target: { type: 'tenant', id: tenantId },
          changes: { from: from.plan, to: to.plan },
        });
      else
        await recordAudit(tx, tenantId, {
          action: from.plan === to.plan ? 'tenant.terms_updated' : 'tenant.plan_set',
          target: { type: 'tenant', id: tenantId },
          changes: { from, to },
        });
    }
    const keys = await applyKeyAllowance(tx, tenantId, to.plan, now);
    const webhooks = await applyWebhookAllowance(tx, tenantId, to.plan, now);
    return {
      tenant,
      previousPlan: from.plan,
      changed,
      effectiveAt: now,
      suspended: { keys: keys.suspended, webhooks: webhooks.suspended },
      restored: { keys: keys.restored, webhooks: webhooks.restored },
    };
  });
  const keysMoved = result.suspended.keys.length + result.restored.keys.length > 0;
  // Cached keys carry the plan and terms, and whether they are suspended.
  if (result.changed || keysMoved) await svc.keyCache.invalidate();
  return result;
}

async function applyKeyAllowance(
  tx: Executor,
  tenantId: string,
  plan: Plan,
  now: Date,
): Promise<{ suspended: string[]; restored: string[] }> {
  const k = apiKeys;
  const active = await tx
    .select({ id: k.id, isPrimary: k.isPrimary, suspendedAt: k.suspendedAt })
    .from(k)
    .where(and(eq(k.tenantId, tenantId), isNull(k.revokedAt)))
    .orderBy(asc(k.createdAt), asc(k.id))
    .for('update');
  if (planAllows(plan, 'multiple_keys')) {
    const restored = active.filter((key) => key.suspendedAt !== null).map((key) => key.id);
    if (restored.length > 0) await tx.update(k).set({ suspendedAt: null, updatedAt: now }).where(inArray(k.id, restored));
    return { suspended: [], restored };
  }
  // One key: the primary, else the oldest active one. It works even if it had been suspended.
  const keeper = active.find((key) => key.isPrimary) ?? active[0];
  const restored = keeper && keeper.suspendedAt !== null ? [keeper.id] : [];
  const suspended = active.filter((key) => key !== keeper && key.suspendedAt === null).map((key) => key.id);
  if (restored.length > 0) await tx.update(k).set({ suspendedAt: null, updatedAt: now }).where(inArray(k.id, restored));
  if (suspended.length > 0) await tx.update(k).set({ suspendedAt: now, updatedAt: now }).where(inArray(k.id, suspended));
  return { suspended, restored };
}

async function applyWebhookAllowance(
  tx: Executor,
  tenantId: string,
  plan: Plan,
  now: Date,
): Promise<{ suspended: string[]; restored: string[] }> {
  const s = webhookSubscriptions;
  if (planAllows(plan, 'webhooks')) {
    const restored = await tx
      .update(s)
      .set({ suspendedAt: null, updatedAt: now })
      .where(and(eq(s.tenantId, tenantId), isNotNull(s.suspendedAt)))
      .returning({ id: s.id });
    return { suspended: [], restored: restored.map((r) => r.id).sort() };
  }
  const suspended = await tx
    .update(s)
    .set({ suspendedAt: now, updatedAt: now })
    .where(and(eq(s.tenantId, tenantId), isNull(s.suspendedAt)))
    .returning({ id: s.id });
  return { suspended: suspended.map((r) => r.id).sort(), restored: [] };
}

/** The answer's shared part: what changed and the terms now in force. */
function changeFields(result: PlanChangeResult) {
  return {
    previous_plan: result.previousPlan,
    changed: result.changed,
    effective_at: result.effectiveAt.toISOString(),
    suspended: result.suspended,
    restored: result.restored,
  };
}

/**
 * Enterprise is a custom contract: only an operator moves a tenant to it or off it. 400
 * `invalid_request` (not 403): the caller holds every scope and no plan would allow it; the
 * value is simply not one this endpoint accepts from a tenant.
 */
const enterpriseByOperator = () =>
  invalidRequest('The enterprise plan is a custom contract: contact sales; an operator moves a tenant to it or off it.', [
    { path: 'plan', message: 'enterprise is changed by an operator only' },
  ]);

/** PUT /api/v1/billing/plan: the tenant's own change among free, pro and business. */
export async function changeOwnPlan(svc: Services, tenantId: string, input: { plan: Plan }) {
  if (!isSelfServe(input.plan)) throw enterpriseByOperator();
  const result = await changePlan(svc, tenantId, { plan: input.plan }, 'tenant');
  return {
    tenant_id: result.tenant.id,
    plan: result.tenant.plan,
    terms: presentTerms(effectiveTerms(result.tenant.plan, rowOverrides(result.tenant))),
    ...changeFields(result),
  };
}

/** The admin endpoint's answer: the tenant view (with its effective terms) and what changed. */
export function presentAdminPlanChange(result: PlanChangeResult) {
  return { ...presentTenant(result.tenant), ...changeFields(result) };
}
