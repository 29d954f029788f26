import type { Principal } from '../auth/principal';
import { findVisibleModule } from '../catalog/queries';
import { recordKeyRefusal } from '../keys/usage';
import { acquireExecutionSlot, type SlotClaim } from '../metering/slots';
import { AppError, notFound } from '../lib/errors';
import type { Services } from '../services';
import { actionLatencyMs, admit, runsInline, runValidated, workerQueue, type Outcome } from './engine';
import type { Lease } from './fair-queue';
import { assertDefinitionIsCurrent } from './definition-pin';
import { assertPolicyAllowsCall } from './policy';
import { presentExecution } from './present';
import { finishExecution, recordExecution, startExecution, type Finished } from './records';

export interface ExecuteInput {
  module: string;
  action: string;
  input: Record<string, unknown>;
  /** The module definition the caller expects (`sha256:<hex>`): any other refuses the call (definition-pin.ts). */
  definition_hash?: string;
}

export interface ExecuteOptions {
  requestId: string;
  source?: 'api' | 'batch' | 'chain' | 'mcp' | 'a2a' | 'workflow';
  /** The request's slot, taken ahead in its admission round trip (src/server/trpc.ts `claimsSlot`). */
  slotClaim?: SlotClaim;
  /** The caller (batch, chain) holds one of the tenant's slots for this call (metering/slots.ts `takeSlots`). */
  slotHeld?: boolean;
  /** A deadline shorter than the action's own (a workflow step's `timeout_ms`): the run is stopped at it and fails with `timeout`. */
  deadlineMs?: number;
}

/**
 * Executes one module action: the single implementation behind REST, batch, chain, MCP and
 * workflows. Unknown module/action is 404 (not an execution); one the key's policy does not allow,
 * or whose definition is not the `definition_hash` the call names, is 403 `policy_denied` (not an
 * execution either). Otherwise, admission first, and
 * nothing is written or counted until the execution is admitted:
 *   the tenant's concurrency slot (429 `concurrency_limit_exceeded` at once when all are held)
 *   -> a worker lease for CPU-bound work (fair across tenants; 429 `concurrency_limit_exceeded`
 *      when none frees up within EXECUTION_QUEUE_WAIT_MS)
 *   -> one transaction: reserve quota (429 `quota_exceeded`), install on first use
 *      (module.installed; refused by the module limit, the reservation rolls back), create the
 *      `running` row (group-committed with concurrent calls' starts, see records.ts)
 *   -> validate input against the action's schema -> run (its deadline starts now)
 *   -> finish the row and write its event in one transaction (group-committed too).
 * A call that runs inline (engine.ts `runsInline`: pure, microseconds) of an installed module runs
 * right after its slot and is then recorded in one commit (quota, finished row, event): refused
 * by the quota, it is neither recorded nor counted, exactly as if it had been refused first.
 * Validation failures, module errors and timeouts are failed executions (recorded, counted,
 * `execution.failed`) thrown as 422/502/504 with the record under `execution`.
 */
export async function executeAction(svc: Services, principal: Principal, call: ExecuteInput, opts: ExecuteOptions) {
  const found = await findVisibleModule(svc.db, principal.tenantId, call.module, svc.moduleCache);
  if (!found) throw notFound('module');
  const declared = found.actions.find((a) => a.name === call.action);
  if (!declared) throw new AppError('not_found', `Module '${call.module}' has no action '${call.action}'.`);
  assertPolicyAllowsCall(svc, principal, found, call.action);
  assertDefinitionIsCurrent(found, call.definition_hash);
  const action =
    opts.deadlineMs !== undefined && opts.deadlineMs < declared.timeoutMs ? { ...declared, timeoutMs: opts.deadlineMs } : declared;
  const queue = workerQueue(svc, found.module, action, call.input);
  // Pure and microseconds: run first, then quota, key caps, row and event in one commit (records.ts recordExecution).
  const oneCommit = found.installed && runsInline(found.module, action, call.input);

  const release = opts.slotHeld ? undefined : await acquireExecutionSlot(svc, principal, opts.slotClaim);
  let lease: Lease | undefined;
  try {
    let result: Finished;
    if (oneCommit) {
      const startedAt = new Date();
      const { outcome, latencyMs } = await timedRun(svc, () => runValidated(svc, found.module, action, call.input, undefined));
      result = await recordExecution(svc, { principal, call, opts, outcome, latencyMs, startedAt });
    } else {
      if (queue) lease = await admit(svc, queue, principal.tenantId, action.timeoutMs);
      const row = await startExecution(svc, principal, call, opts, !found.installed);
      const { outcome, latencyMs } = await timedRun(svc, () => runValidated(svc, found.module, action, call.input, lease), row.id);
      lease?.release();
      result = await finishExecution(svc, row, outcome, latencyMs);
    }
    const { finished, outcome: recorded } = result;
    if (recorded.ok) {
      return {
        execution_id: finished.id,
        module: finished.module,
        action: finished.action,
        status: 'success' as const,
        output: recorded.output,
        latency_ms: finished.latencyMs!,
        request_id: finished.requestId,
      };
    }
    throw new AppError(recorded.code, recorded.message, {
      ...(recorded.issues ? { issues: recorded.issues } : {}),
      execution: presentExecution(finished),
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'key_limit_exceeded') recordKeyRefusal(svc, principal, String(err.details.limit));
    throw err;
  } finally {
    lease?.release();
    // Written to Redis now, not awaited: the reply need not wait for the slot's round trip.
    void release?.();
  }
}

/** Runs the action and times it; an unexpected failure of the engine is a failed execution, never a row left `running`. */
async function timedRun(
  svc: Services,
  run: () => Promise<Outcome>,
  executionId?: string,
): Promise<{ outcome: Outcome; latencyMs: number }> {
  const started = performance.now();
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (err) {
    svc.logger.error({ err: String(err), execution_id: executionId }, 'execution failed unexpectedly');
    outcome = { ok: false, code: 'module_error', message: 'The action failed unexpectedly.' };
  }
  return { outcome, latencyMs: actionLatencyMs(started, outcome) };
}
