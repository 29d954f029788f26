import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { actionName, moduleName } from '../catalog/schema';
import { takeSlots } from '../metering/slots';
import type { Services } from '../services';
import { settleCall, type CallResult } from './batch';
import { evaluateExpression, parseExpression } from './expressions';
import { assertPolicyAllowsCalls } from './policy';

export const MAX_CHAIN_STEPS = 10;

export const chainInput = z.strictObject({
  input: z.record(z.string(), z.unknown()).default({}),
  steps: z
    .array(
      z.strictObject({
        module: moduleName,
        action: actionName,
        input: z.record(z.string(), z.unknown()).default({}),
        map: z
          .string()
          .min(1)
          .max(2000)
          .superRefine((expression, ctx) => {
            // Checked here, so a chain whose later step has an invalid `map` runs no step at all.
            try {
              parseExpression(expression);
            } catch (err) {
              ctx.addIssue({ code: 'custom', message: `Invalid map expression: ${(err as Error).message}` });
            }
          })
          .optional()
          .describe(
            'JSONata expression over the previous output, applied before merging; its syntax is checked before any step runs (400)',
          ),
      }),
    )
    .min(1)
    .max(MAX_CHAIN_STEPS),
});

type StepResult = Omit<CallResult, 'id'>;

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };

/**
 * POST /api/v1/chain: steps run in order; each step's input is its own `input` with the previous
 * output (the chain's `input` for the first step) merged over it — reshaped first by `map` when
 * given; a non-object output is passed as `{ value }`. Stops at the first failure; a step the
 * key's policy refuses is refused (403) before any step runs. One request;
 * one execution per executed step.
 */
export async function runChain(svc: Services, principal: Principal, input: z.infer<typeof chainInput>, requestId: string) {
  // A step the key's policy refuses stops the chain before any step runs.
  await assertPolicyAllowsCalls(svc, principal, input.steps);
  // One slot for the whole chain, its steps running one after another in it.
  const slot = await takeSlots(svc, principal, 1);
  try {
    return await runSteps(svc, principal, input, { requestId, source: 'chain', slotHeld: slot.held === 1 });
  } finally {
    slot.giveBack();
  }
}

async function runSteps(svc: Services, principal: Principal, input: z.infer<typeof chainInput>, opts: Parameters<typeof settleCall>[3]) {
  const steps: StepResult[] = [];
  let previous: unknown = input.input;
  for (const [index, step] of input.steps.entries()) {
    let carried: Record<string, unknown>;
    try {
      carried = asObject(step.map ? await evaluateMap(svc, principal.tenantId, step.map, previous) : previous);
    } catch (err) {
      steps.push({
        module: step.module,
        action: step.action,
        status: 'failed',
        error: { code: 'invalid_input', message: (err as Error).message },
        latency_ms: 0,
        execution_id: null,
      });
      return { status: 'failed' as const, output: null, failed_step: index, steps };
    }
    const { id: _id, ...result } = await settleCall(
      svc,
      principal,
      { module: step.module, action: step.action, input: { ...step.input, ...carried } },
      opts,
      String(index),
    );
    steps.push(result);
    if (result.status === 'failed') return { status: 'failed' as const, output: null, failed_step: index, steps };
    previous = result.output;
  }
  return { status: 'success' as const, output: previous, failed_step: null, steps };
}

/** A `map` over the previous output; its syntax was checked with the body (chainInput). */
async function evaluateMap(svc: Services, tenantId: string, expression: string, value: unknown): Promise<unknown> {
  try {
    return await evaluateExpression(svc, tenantId, expression, value);
  } catch (err) {
    throw new Error(`The map expression failed: ${(err as Error).message}`, { cause: err });
  }
}
