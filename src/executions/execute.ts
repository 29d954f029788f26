import { eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal';
import { installInTx } from '../catalog/install';
import { findVisibleModule } from '../catalog/queries';
import { executions, type ExecutionRow, type ModuleActionRow, type ModuleRow } from '../db/schema';
import { afterEvents, recordEvent } from '../events/record';
import { newId } from '../lib/ids';
import { storableJson } from '../lib/storable';
import { acquireExecutionSlot } from '../metering/slots';
import { reserveExecutions } from '../metering/usage';
import { AppError, notFound } from '../lib/errors';
import type { Services } from '../services';
import type { RunOutcome } from './pool';
import { runPublishedAction } from './runtimes';
import { executionEventData, presentExecution } from './present';
import { schemaIssues } from './schemas';

export const MAX_OUTPUT_BYTES = 1024 * 1024;

export interface ExecuteInput {
  module: string;
  action: string;
  input: Record<string, unknown>;
}

export interface ExecuteOptions {
  requestId: string;
  source?: 'api' | 'batch' | 'chain' | 'mcp' | 'a2a' | 'workflow';
}

type Failure = { code: 'invalid_input' | 'module_error' | 'timeout'; message: string; issues?: { path: string; message: string }[] };

/**
 * Executes one module action: the single implementation behind REST, batch, chain, MCP and
 * workflows. Unknown module/action is 404 (not an execution). Otherwise: install on first use
 * (module.installed) -> concurrency slot -> reserve quota + create the `running` row in one
 * transaction -> validate input against the action's schema -> run in the worker pool -> finish
 * the row and write its event in one transaction. Validation failures, module errors and
 * timeouts are failed executions (recorded, counted, `execution.failed`) thrown as 422/502/504
 * with the record under `execution`.
 */
export async function executeAction(svc: Services, principal: Principal, call: ExecuteInput, opts: ExecuteOptions) {
  const found = await findVisibleModule(svc.db, principal.tenantId, call.module, svc.moduleCache);
  if (!found) throw notFound('module');
  const action = found.actions.find((a) => a.name === call.action);
  if (!action) throw new AppError('not_found', `Module '${call.module}' has no action '${call.action}'.`);
  if (!found.installed) afterEvents(svc, (await svc.db.transaction((tx) => installInTx(svc, tx, principal, call.module, 'first_use'))).event);

  const release = await acquireExecutionSlot(svc, principal);
  try {
    const row = await startExecution(svc, principal, call, opts);
    const started = performance.now();
    const outcome = await runValidated(svc, found.module, action, call.input);
    const latencyMs = Math.round(performance.now() - started);
    const finished = await finishExecution(svc, row, outcome, latencyMs);
    if (outcome.ok) {
      return {
        execution_id: finished.id,
        module: finished.module,
        action: finished.action,
        status: 'success' as const,
        output: outcome.output,
        latency_ms: latencyMs,
        request_id: finished.requestId,
      };
    }
    throw new AppError(outcome.code, outcome.message, {
      ...(outcome.issues ? { issues: outcome.issues } : {}),
      execution: presentExecution(finished),
    });
  } finally {
    await release();
  }
}

async function startExecution(svc: Services, principal: Principal, call: ExecuteInput, opts: ExecuteOptions): Promise<ExecutionRow> {
  const { row, used } = await svc.db.transaction(async (tx) => {
    const reservation = await reserveExecutions(tx, principal, 1);
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
    return { row: inserted!, used: reservation.used };
  });
  svc.usage.note(principal.tenantId, used);
  return row;
}

async function runValidated(
  svc: Services,
  module: ModuleRow,
  action: ModuleActionRow,
  input: Record<string, unknown>,
): Promise<{ ok: true; output: unknown } | ({ ok: false } & Failure)> {
  const validate = svc.schemas.validator(`${module.name}@${module.version}@${module.updatedAt.getTime()}/${action.name}`, action.inputSchema);
  if (!validate(input)) {
    const issues = schemaIssues(validate);
    const first = issues[0];
    return { ok: false, code: 'invalid_input', message: `Input does not match the action's input_schema: ${first?.path ? `${first.path}: ` : ''}${first?.message ?? 'invalid'}`, issues };
  }
  if (module.runtime.type !== 'builtin') {
    // Published modules: `javascript` in the QuickJS sandbox pool, `http` at the publisher's endpoint.
    return runPublishedAction(svc, module.runtime, action, input);
  }
  const outcome: RunOutcome = await svc.pool.run({
    module: module.name,
    action: action.name,
    input,
    timeoutMs: action.timeoutMs,
    allowPrivateNetwork: svc.config.webhooks.allowPrivate,
  });
  if (outcome.ok && Buffer.byteLength(JSON.stringify(outcome.output)) > MAX_OUTPUT_BYTES) {
    return { ok: false, code: 'module_error', message: 'The action output exceeds 1 MiB.' };
  }
  return outcome;
}

async function finishExecution(
  svc: Services,
  row: ExecutionRow,
  outcome: { ok: true; output: unknown } | ({ ok: false } & Failure),
  latencyMs: number,
): Promise<ExecutionRow> {
  const serialized = outcome.ok ? JSON.stringify(outcome.output ?? null) : undefined;
  const { finished, event } = await svc.db.transaction(async (tx) => {
    const [finished] = await tx
      .update(executions)
      .set({
        status: outcome.ok ? 'success' : 'failed',
        output: outcome.ok ? storableJson(outcome.output ?? null, serialized) : null,
        outputBytes: serialized === undefined ? null : Buffer.byteLength(serialized),
        errorCode: outcome.ok ? null : outcome.code,
        errorMessage: outcome.ok ? null : outcome.message,
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
