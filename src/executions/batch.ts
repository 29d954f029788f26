import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { actionName, moduleName, pinnedDefinitionHash } from '../catalog/schema';
import { AppError } from '../lib/errors';
import type { Services } from '../services';
import { takeSlots } from '../metering/slots';
import { PLANS } from '../tenants/plans';
import { executeAction, type ExecuteInput } from './execute';

export const MAX_BATCH_CALLS = 10;

export const batchInput = z.strictObject({
  calls: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(64).optional(),
        module: moduleName,
        action: actionName,
        input: z.record(z.string(), z.unknown()).default({}),
        definition_hash: pinnedDefinitionHash,
      }),
    )
    .min(1, 'A batch needs at least one call')
    .max(MAX_BATCH_CALLS, `A batch runs at most ${MAX_BATCH_CALLS} calls`)
    .superRefine((calls, ctx) => {
      // Results are answered under these ids (a call without one under its index), so two calls
      // answered under one id would make the answer ambiguous: refused before anything runs.
      const first = new Map<string, number>();
      calls.forEach((call, i) => {
        if (call.id === undefined) return;
        const earlier = first.get(call.id);
        const index = /^(0|[1-9][0-9]*)$/.test(call.id) ? Number(call.id) : -1;
        let message: string | undefined;
        if (earlier !== undefined) message = `Duplicate call id '${call.id}': call ${earlier} has it too.`;
        else if (index !== i && calls[index] && calls[index].id === undefined) {
          message = `Duplicate call id '${call.id}': call ${index} has no id and is answered under its index, ${index}.`;
        }
        if (message) ctx.addIssue({ code: 'custom', path: [i, 'id'], message });
        else first.set(call.id, i);
      });
    }),
});

export interface CallResult {
  id: string;
  module: string;
  action: string;
  status: 'success' | 'failed';
  output?: unknown;
  error?: { code: string; message: string };
  latency_ms: number;
  execution_id: string | null;
}

/** One executeAction, its outcome as a result row instead of a thrown error. */
export async function settleCall(
  svc: Services,
  principal: Principal,
  call: ExecuteInput,
  opts: { requestId: string; source: 'batch' | 'chain'; slotHeld: boolean },
  id: string,
): Promise<CallResult> {
  const started = performance.now();
  try {
    const r = await executeAction(svc, principal, call, opts);
    return {
      id,
      module: call.module,
      action: call.action,
      status: 'success',
      output: r.output,
      latency_ms: r.latency_ms,
      execution_id: r.execution_id,
    };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const execution = err.details.execution as { execution_id: string; latency_ms: number | null } | undefined;
    return {
      id,
      module: call.module,
      action: call.action,
      status: 'failed',
      error: { code: err.code, message: err.message },
      latency_ms: execution?.latency_ms ?? Math.round(performance.now() - started),
      execution_id: execution?.execution_id ?? null,
    };
  }
}

/**
 * POST /api/v1/batch: 1–10 calls in parallel (at most the plan's concurrency at once), results
 * in call order. One request; one execution per call, each through executeAction, so quota is
 * reserved per call and a call past the quota fails alone.
 */
export async function runBatch(svc: Services, principal: Principal, input: z.infer<typeof batchInput>, requestId: string) {
  const width = Math.min(input.calls.length, PLANS[principal.plan].concurrency);
  const results: CallResult[] = new Array(input.calls.length);
  let next = 0;
  const slots = await takeSlots(svc, principal, width);
  try {
    await Promise.all(
      Array.from({ length: width }, async (_, run) => {
        while (next < input.calls.length) {
          const index = next++;
          const call = input.calls[index]!;
          results[index] = await settleCall(
            svc,
            principal,
            call,
            { requestId, source: 'batch', slotHeld: run < slots.held },
            call.id ?? String(index),
          );
        }
      }),
    );
  } finally {
    slots.giveBack();
  }
  const succeeded = results.filter((r) => r.status === 'success').length;
  return { data: results, succeeded, failed: results.length - succeeded };
}
