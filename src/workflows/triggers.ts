import { and, asc, eq, isNotNull, lte } from 'drizzle-orm';
import { tenantPrincipal } from '../auth/principal';
import { tenants, workflowRuns, workflows, type RunOrigin, type WorkflowRow, type WorkflowSchedule } from '../db/schema';
import { newId } from '../lib/ids';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { startRun } from './runs';
import { nextTick } from './definition';
import { evaluateCondition, resolveTemplate } from './templates';

/**
 * Runs nobody called: a workflow's `schedule` (cron in a time zone) and its `on` trigger (an event
 * kind of the tenant, with a filter). Either starts an ordinary run (src/workflows/runs.ts) with
 * an idempotency key made of its cause (`schedule:<tick>`, `event:<event id>`), so a tick or an
 * event starts exactly one run, whichever instance gets there first and however often.
 */

/** A chain of runs each started by an event the previous one caused stops here. */
export const MAX_TRIGGER_DEPTH = 10;

/** The principal a triggered run runs as: the tenant now, with the scopes of the credential that saved the workflow. */
async function triggerPrincipal(svc: Services, workflow: WorkflowRow) {
  const [tenant] = await svc.db.select().from(tenants).where(eq(tenants.id, workflow.tenantId));
  if (!tenant || tenant.deletedAt) return undefined;
  const principal = tenantPrincipal(tenant, workflow.savedScopes, workflow.savedKeyId ? 'api_key' : 'bearer');
  if (workflow.savedKeyId) principal.keyId = workflow.savedKeyId;
  return principal;
}

/**
 * Starts a run nobody called, as the credential that saved the workflow, with the idempotency key
 * of its cause. False when the service refused it (the refusal is logged; a run the plan or the
 * workflow no longer allows is not retried); a database failure is thrown, so the cause (a due
 * tick, an event in the inbox) is taken up again by the next pass.
 */
async function startTriggeredRun(
  svc: Services,
  workflow: WorkflowRow,
  input: unknown,
  idempotencyKey: string,
  how: { origin: RunOrigin; triggerDepth?: number },
): Promise<boolean> {
  const principal = await triggerPrincipal(svc, workflow);
  if (!principal) return false;
  try {
    const start = { id: workflow.id, input: input as Record<string, unknown>, idempotency_key: idempotencyKey };
    await startRun(svc, principal, start, newId('req'), how);
    return true;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    svc.logger.warn({ err: err.message, workflowId: workflow.id, origin: how.origin.type }, 'a triggered run was refused');
    return false;
  }
}

/**
 * Starts the runs of the schedules whose tick has passed by `now`, then moves each to its next
 * tick after `now`. After downtime a schedule runs once, for the earliest tick it missed, and the
 * ticks between are skipped. A start and its move are idempotent, so two instances sweeping at
 * once, or a crash between them, start the tick's run once.
 */
export async function fireDueSchedules(svc: Services, now = new Date(), limit = 50): Promise<number> {
  const due = await svc.db
    .select()
    .from(workflows)
    .where(and(isNotNull(workflows.nextRunAt), lte(workflows.nextRunAt, now)))
    .orderBy(asc(workflows.nextRunAt))
    .limit(limit);
  let started = 0;
  for (const workflow of due) {
    const tick = workflow.nextRunAt!;
    const schedule = workflow.schedule;
    if (schedule) {
      const at = tick.toISOString();
      const input = resolveTemplate(schedule.input ?? {}, { input: {}, steps: {}, schedule: { tick: at } });
      if (await startTriggeredRun(svc, workflow, input, `schedule:${at}`, { origin: { type: 'schedule', tick: at } })) started++;
    }
    await svc.db
      .update(workflows)
      .set({ nextRunAt: schedule ? tickAfter(schedule, now) : null })
      .where(and(eq(workflows.id, workflow.id), eq(workflows.nextRunAt, tick)));
  }
  return started;
}

/** The schedule's next tick after `now`; none for a schedule that can no longer be read. */
function tickAfter(schedule: WorkflowSchedule, now: Date): Date | null {
  try {
    return nextTick(schedule, now);
  } catch {
    return null;
  }
}

/** The depth of the run whose work recorded the event (0 for an event no run caused). */
async function causeDepth(svc: Services, event: { tenantId: string; type: string; data: unknown }): Promise<number> {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const r = workflowRuns;
  const by =
    event.type.startsWith('workflow.') && typeof data.run_id === 'string'
      ? eq(r.id, data.run_id)
      : typeof data.request_id === 'string'
        ? eq(r.requestId, data.request_id)
        : undefined;
  if (!by) return 0;
  const [cause] = await svc.db
    .select({ depth: r.triggerDepth })
    .from(r)
    .where(and(eq(r.tenantId, event.tenantId), by))
    .limit(1);
  return cause ? cause.depth + 1 : 0;
}

/**
 * Starts a run of each of the tenant's workflows whose `on` trigger takes this event (its kind,
 * and its filter when it has one). A workflow's own workflow.* events never start it, and a chain
 * of runs each caused by the previous one stops after MAX_TRIGGER_DEPTH.
 */
export async function startTriggeredRuns(
  svc: Services,
  event: { id: string; tenantId: string; type: string; data: unknown; createdAt: Date },
): Promise<number> {
  const listening = await svc.db
    .select()
    .from(workflows)
    .where(and(eq(workflows.tenantId, event.tenantId), eq(workflows.triggerEvent, event.type)));
  if (listening.length === 0) return 0;
  const payload = { id: event.id, type: event.type, data: event.data, created_at: event.createdAt.toISOString() };
  const depth = await causeDepth(svc, event);
  let started = 0;
  for (const workflow of listening) {
    const trigger = workflow.trigger;
    // Events recorded before the trigger was saved do not start it.
    if (!trigger || workflow.updatedAt > event.createdAt) continue;
    if ((event.data as { workflow_id?: unknown } | null)?.workflow_id === workflow.id) continue;
    if (depth >= MAX_TRIGGER_DEPTH) {
      svc.logger.warn({ workflowId: workflow.id, eventId: event.id }, 'trigger chain too deep; no run started');
      continue;
    }
    const context = { input: {}, steps: {}, event: payload };
    try {
      if (trigger.filter !== undefined && !(await evaluateCondition(svc, event.tenantId, trigger.filter, context))) continue;
    } catch (err) {
      svc.logger.warn({ err: String(err), workflowId: workflow.id }, 'a trigger filter failed; no run started');
      continue;
    }
    const input = resolveTemplate(trigger.input ?? {}, context);
    const how = { origin: { type: 'event' as const, event_id: event.id, event_type: event.type }, triggerDepth: depth };
    if (await startTriggeredRun(svc, workflow, input, `event:${event.id}`, how)) started++;
  }
  return started;
}
