import { and, count, desc, eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Executor } from '../db';
import { tenants, workflows, type WorkflowRow } from '../db/schema';
import { conflict, notFound } from '../lib/errors';
import { newId } from '../lib/ids';
import { beforeCursor, decodeCursor, toPage } from '../lib/pagination';
import type { Services } from '../services';
import { PLANS } from '../tenants/plans';
import { nextTick, validateEventTrigger, validateSchedule, validateSteps } from './definition';
import { flowOf, waitForTurn } from './flow';
import type { CreateWorkflowInput, UpdateWorkflowInput } from './schema';

export function presentWorkflow(row: WorkflowRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version: row.version,
    steps: row.steps,
    schedule: row.schedule ? { ...row.schedule, input: row.schedule.input ?? {} } : null,
    next_run_at: row.nextRunAt ? row.nextRunAt.toISOString() : null,
    on: row.trigger ? { ...row.trigger, input: row.trigger.input ?? {} } : null,
    concurrency: row.flow?.concurrency ?? null,
    throttle: row.flow?.throttle ?? null,
    debounce: row.flow?.debounce ?? null,
    priority: row.priority,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * The tenant's workflow, or 404 (another tenant's id is indistinguishable from none). With
 * `lock: 'share'` (inside a transaction), a concurrent update or delete waits for it to commit.
 */
export async function findWorkflow(db: Executor, tenantId: string, id: string, lock?: 'share' | 'no key update'): Promise<WorkflowRow> {
  const query = db
    .select()
    .from(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.tenantId, tenantId)));
  if (lock === 'no key update') await waitForTurn(db);
  const [row] = await (lock ? query.for(lock) : query);
  if (!row) throw notFound('workflow');
  return row;
}

/**
 * The saved columns of a definition's triggers and flow control, checked (400 naming the field):
 * the schedule with its first tick after now, the event trigger with its kind for the listeners'
 * index, the saving credential's scopes (which the runs they start run with), the flow and the
 * priority.
 */
function triggerColumns(principal: Principal, input: CreateWorkflowInput) {
  if (input.schedule) validateSchedule(input.schedule);
  if (input.on) validateEventTrigger(input.on);
  return {
    schedule: input.schedule ?? null,
    nextRunAt: input.schedule ? nextTick(input.schedule, new Date()) : null,
    trigger: input.on ?? null,
    triggerEvent: input.on?.event ?? null,
    savedScopes: principal.scopes,
    savedKeyId: principal.keyId ?? null,
    flow: flowOf(input),
    priority: input.priority ?? 0,
  };
}

/** POST /api/v1/workflows: 201 with version 1. */
export async function createWorkflow(svc: Services, principal: Principal, input: CreateWorkflowInput) {
  const steps = await validateSteps(svc, principal.tenantId, input.steps);
  const triggers = triggerColumns(principal, input);
  const row = await svc.db.transaction(async (tx) => {
    // The tenant row's lock serialises a tenant's creates: two at once cannot both count 199.
    await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, principal.tenantId)).for('update');
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(workflows).where(eq(workflows.tenantId, principal.tenantId));
    const limit = PLANS[principal.plan].workflows;
    if (n >= limit) throw conflict(`A tenant can have at most ${limit} workflows.`);
    const [inserted] = await tx
      .insert(workflows)
      .values({
        id: newId('wf'),
        tenantId: principal.tenantId,
        name: input.name,
        description: input.description ?? null,
        steps,
        ...triggers,
      })
      .returning();
    await recordAudit(tx, principal.tenantId, {
      action: 'workflow.created',
      target: { type: 'workflow', id: inserted!.id },
      changes: {
        name: inserted!.name,
        version: inserted!.version,
        steps: steps.length,
        schedule: input.schedule?.cron ?? null,
        on: input.on?.event ?? null,
      },
    });
    return inserted!;
  });
  return presentWorkflow(row);
}

/** GET /api/v1/workflows: newest first. */
export async function listWorkflows(svc: Services, principal: Principal, input: { limit: number; cursor?: string }) {
  const cursor = decodeCursor(input.cursor);
  const w = workflows;
  const rows = await svc.db
    .select()
    .from(w)
    .where(and(eq(w.tenantId, principal.tenantId), beforeCursor(w.createdAt, w.id, cursor)))
    .orderBy(desc(w.createdAt), desc(w.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, presentWorkflow);
}

export async function getWorkflow(svc: Services, principal: Principal, id: string) {
  return presentWorkflow(await findWorkflow(svc.db, principal.tenantId, id));
}

/** PUT /api/v1/workflows/{id}: a new version; runs under way keep the version they started with. */
export async function updateWorkflow(svc: Services, principal: Principal, input: UpdateWorkflowInput) {
  await findWorkflow(svc.db, principal.tenantId, input.id);
  const steps = await validateSteps(svc, principal.tenantId, input.steps);
  const triggers = triggerColumns(principal, input);
  const row = await svc.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(workflows)
      .set({
        name: input.name,
        description: input.description ?? null,
        steps,
        ...triggers,
        version: sql`${workflows.version} + 1`,
        updatedAt: new Date(),
      })
      .where(and(eq(workflows.id, input.id), eq(workflows.tenantId, principal.tenantId)))
      .returning();
    if (!updated) throw notFound('workflow');
    await recordAudit(tx, principal.tenantId, {
      action: 'workflow.updated',
      target: { type: 'workflow', id: updated.id },
      changes: {
        name: updated.name,
        version: updated.version,
        steps: steps.length,
        schedule: input.schedule?.cron ?? null,
        on: input.on?.event ?? null,
      },
    });
    return updated;
  });
  return presentWorkflow(row);
}

/** DELETE /api/v1/workflows/{id}: its runs go with it (steps already running finish on their own). */
export async function deleteWorkflow(svc: Services, principal: Principal, id: string) {
  const row = await svc.db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(workflows)
      .where(and(eq(workflows.id, id), eq(workflows.tenantId, principal.tenantId)))
      .returning({ id: workflows.id, name: workflows.name });
    if (!deleted) throw notFound('workflow');
    await recordAudit(tx, principal.tenantId, {
      action: 'workflow.deleted',
      target: { type: 'workflow', id: deleted.id },
      changes: { name: deleted.name },
    });
    return deleted;
  });
  return { id: row.id, deleted: true as const };
}

/** Whether the tenant has any workflow (MCP lists its workflow tools only then). */
export async function hasWorkflows(svc: Services, tenantId: string): Promise<boolean> {
  const [row] = await svc.db.select({ id: workflows.id }).from(workflows).where(eq(workflows.tenantId, tenantId)).limit(1);
  return row !== undefined;
}
