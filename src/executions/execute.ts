import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { thresholdEvents } from '../billing/thresholds';
import { installInTx } from '../catalog/install';
import { findVisibleModule } from '../catalog/queries';
import { executions, type ExecutionRow } from '../db/schema';
import { afterEvents, recordEvent } from '../events/record';
import { newId } from '../lib/ids';
import { storableJson, storableText } from '../lib/storable';
import { acquireExecutionSlot } from '../metering/slots';
import { reserveExecutions } from '../metering/usage';
import { AppError, notFound } from '../lib/errors';
import type { Services } from '../services';
import { admit, runValidated, workerQueue, type Outcome } from './engine';
import type { Lease } from './fair-queue';
import { executionEventData, presentExecution } from './present';

export interface ExecuteInput {
  module: string;
  action: string;
  input: Record<string, unknown>;
}

export interface ExecuteOptions {
  requestId: string;
  source?: 'api' | 'batch' | 'chain' | 'mcp' | 'a2a' | 'workflow';
}

/**
 * Executes one module action: the single implementation behind REST, batch, chain, MCP and
 * workflows. Unknown module/action is 404 (not an execution). Otherwise, admission first, and
 * nothing is written or counted until the execution is admitted:
 *   the tenant's concurrency slot (429 `concurrency_limit_exceeded` at once when all are held)
 *   -> a worker lease for CPU-bound work (fair across tenants; 429 `concurrency_limit_exceeded`
 *      when none frees up within EXECUTION_QUEUE_WAIT_MS)
 *   -> one transaction: reserve quota (429 `quota_exceeded`), install on first use
 *      (module.installed; refused by the module limit, the reservation rolls back), create the
 *      `running` row
 *   -> validate input against the action's schema -> run (its deadline starts now)
 *   -> finish the row and write its event in one transaction.
 * Validation failures, module errors and timeouts are failed executions (recorded, counted,
 * `execution.failed`) thrown as 422/502/504 with the record under `execution`.
 */
export async function executeAction(svc: Services, principal: Principal, call: ExecuteInput, opts: ExecuteOptions) {
  const found = await findVisibleModule(svc.db, principal.tenantId, call.module, svc.moduleCache);
  if (!found) throw notFound('module');
  const action = found.actions.find((a) => a.name === call.action);
  if (!action) throw new AppError('not_found', `Module '${call.module}' has no action '${call.action}'.`);
  const queue = workerQueue(svc, found.module, action);

  const release = await acquireExecutionSlot(svc, principal);
  let lease: Lease | undefined;
  try {
    if (queue) lease = await admit(svc, queue, principal.tenantId);
    const row = await startExecution(svc, principal, call, opts, !found.installed);
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await runValidated(svc, found.module, action, call.input, lease);
    } catch (err) {
      // Never leave the row `running`: an unexpected failure of the engine fails the execution.
      svc.logger.error({ err: String(err), execution_id: row.id }, 'execution failed unexpectedly');
      outcome = { ok: false, code: 'module_error', message: 'The action failed unexpectedly.' };
    }
    lease?.release();
    const latencyMs = Math.round(performance.now() - started);
    const { finished, outcome: recorded } = await finishExecution(svc, row, outcome, latencyMs);
    if (recorded.ok) {
      return {
        execution_id: finished.id,
        module: finished.module,
        action: finished.action,
        status: 'success' as const,
        output: recorded.output,
        latency_ms: latencyMs,
        request_id: finished.requestId,
      };
    }
    throw new AppError(recorded.code, recorded.message, {
      ...(recorded.issues ? { issues: recorded.issues } : {}),
      execution: presentExecution(finished),
    });
  } finally {
    lease?.release();
    await release();
  }
}

async function startExecution(svc: Services, principal: Principal, call: ExecuteInput, opts: ExecuteOptions, install: boolean): Promise<ExecutionRow> {
  const { row, used, installed, billing } = await svc.db.transaction(async (tx) => {
    // The quota first: its row lock serialises the tenant's starts, so the install's lock on the
    // tenant row (taken after it) cannot deadlock with another start's foreign-key check.
    const reservation = await reserveExecutions(tx, principal, 1);
    // Crossing 80% or 100% of the quota: recorded with the reservation that crossed it.
    const billing = [];
    for (const crossed of thresholdEvents(principal, reservation, 1)) billing.push(await recordEvent(svc, tx, principal.tenantId, crossed.type, crossed.data));
    // Install on first use only once admitted; refused by the module limit, nothing is counted.
    const installed = install ? await installInTx(svc, tx, principal, call.module, 'first_use') : undefined;
    const [inserted] = await tx
      .insert(executions)
      .values({
        id: newId('exe'),
        tenantId: principal.tenantId,
        module: call.module,
        action: call.action,
        status: 'running',
        requestId: opts.requestId,
        keyId: principal.keyId ?? null,
        inputBytes: Buffer.byteLength(JSON.stringify(call.input)),
        source: opts.source ?? 'api',
      })
      .returning();
    return { row: inserted!, used: reservation.used, installed, billing };
  });
  afterEvents(svc, installed?.event, ...billing);
  svc.usage.note(principal.tenantId, used);
  return row;
}

/**
 * Finishes the row and writes its event in one transaction. Everything written is storable text
 * (U+0000 and lone surrogates become U+FFFD in the output, its keys and the error message; the
 * caller still gets the original). Should that write fail all the same, the execution is still
 * finished, as failed with a generic message and its event, and that is what the caller gets.
 */
async function finishExecution(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<{ finished: ExecutionRow; outcome: Outcome }> {
  try {
    return { finished: await writeFinish(svc, row, outcome, latencyMs), outcome };
  } catch (err) {
    svc.logger.error({ err: String(err), execution_id: row.id }, 'could not record the execution outcome; recording it as failed');
    const failed: Outcome = { ok: false, code: 'module_error', message: 'The action result could not be recorded.' };
    return { finished: await writeFinish(svc, row, failed, latencyMs), outcome: failed };
  }
}

async function writeFinish(svc: Services, row: ExecutionRow, outcome: Outcome, latencyMs: number): Promise<ExecutionRow> {
  const serialized = outcome.ok ? JSON.stringify(outcome.output ?? null) : undefined;
  const { finished, event } = await svc.db.transaction(async (tx) => {
    const [finished] = await tx
      .update(executions)
      .set({
        status: outcome.ok ? 'success' : 'failed',
        output: outcome.ok ? storableJson(outcome.output ?? null, serialized) : null,
        outputBytes: serialized === undefined ? null : Buffer.byteLength(serialized),
        errorCode: outcome.ok ? null : outcome.code,
        errorMessage: outcome.ok ? null : storableText(outcome.message),
        latencyMs,
        finishedAt: new Date(),
      })
      .where(eq(executions.id, row.id))
      .returning();
    const event = await recordEvent(
      svc,
      tx,
      row.tenantId,
      outcome.ok ? 'execution.completed' : 'execution.failed',
      executionEventData(finished!, outcome.ok ? outcome.output : undefined),
    );
    return { finished: finished!, event };
  });
  afterEvents(svc, event);
  return finished;
}
