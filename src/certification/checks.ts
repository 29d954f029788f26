/**
 * The checks of one certification run over one module definition (docs/trust.md
 * "Certification"). Actions run through the engine without the books (src/executions/engine.ts):
 * nothing is recorded, billed or emitted. CPU-bound runs wait in the fair worker queue as the
 * tenant `certification`, so a run takes turns with tenants' executions instead of starving them.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CertificationCheck, ModuleActionRow, ModuleRow } from '../db/schema';
import { actionLatencyMs, checkSchema, inputSchemaKey, runValidated, workerQueue, type Outcome } from '../executions/engine';
import type { SchemaCheck } from '../executions/schemas';
import type { FairQueue, Lease } from '../executions/fair-queue';
import { runHttpModule } from '../executions/runtimes/http';
import { encryptSecret, generateSigningSecret } from '../lib/secrets';
import { builtinDefinitions } from '../modules/definitions';
import type { Services } from '../services';
import { malformedInputs } from './malformed';
import { CERTIFICATION_TENANT, LATENCY_BUDGET_MS, LATENCY_CHECK, LATENCY_RUNS_PER_ACTION } from './rule';

export interface CheckResults {
  checks: CertificationCheck[];
  /** Nearest-rank p95 of the latency samples; null when no action could be timed. */
  p95Ms: number | null;
  /** An example ended in a module error or timeout, or any run timed out or crashed its worker. */
  crashed: boolean;
}

/** The run's deadline passed: the run ends `failed`, the module keeps its tier. */
export class CertificationDeadlineError extends Error {
  override name = 'CertificationDeadlineError';
}

const MAX_DETAIL_CHARS = 600;
/** Outcomes of a worker or sandbox dying, not of the action answering. */
const CRASH_MESSAGE = /crashed|could not start|ran out of memory|overflowed its stack|sandbox failed/i;

interface ActionPlan {
  action: ModuleActionRow;
  /** Output varies between runs: examples are checked against output_schema only. */
  nondeterministic: boolean;
  /**
   * A built-in action that reaches third-party hosts (the `http` pack): its examples name public
   * URLs, so they are not run (their declared outputs are schema-checked) and it is not timed.
   */
  network: boolean;
  /**
   * A built-in's examples come from its code: the stored copy went through jsonb, which reorders
   * object keys (json_to_yaml's output follows its input's key order).
   */
  examples: { input: unknown; output: unknown }[];
}

export async function runChecks(svc: Services, module: ModuleRow, actions: ModuleActionRow[], deadline: number): Promise<CheckResults> {
  const runner = new Runner(svc, module, deadline);
  const builtin = module.runtime.type === 'builtin' ? (await builtinDefinitions()).find((m) => m.name === module.name) : undefined;
  const plans: ActionPlan[] = actions.map((action) => {
    const definition = builtin?.actions.find((a) => a.name === action.name);
    return {
      action,
      nondeterministic: definition?.nondeterministic === true,
      network: definition?.io === true,
      examples: definition?.examples ?? action.examples,
    };
  });

  const checks: CertificationCheck[] = [metadataCheck(module, actions)];
  for (const plan of plans) checks.push(await runner.examplesCheck(plan));
  for (const plan of plans) checks.push(await runner.malformedCheck(plan));
  checks.push(await runner.latencyCheck(plans));
  if (module.runtime.type === 'http') checks.push(await signatureCheck(svc, module, actions[0]));
  if (module.runtime.type === 'javascript') checks.push(runner.limitsCheck());
  return { checks, p95Ms: runner.p95(), crashed: runner.crashed };
}

// ---------------------------------------------------------------------------------------------

function metadataCheck(module: ModuleRow, actions: ModuleActionRow[]): CertificationCheck {
  const problems: string[] = [];
  if (module.description.trim().length < 20) problems.push('the module description is under 20 characters');
  if (!/^\d+\.\d+\.\d+/.test(module.version)) problems.push(`the version '${module.version}' is not semantic (x.y.z)`);
  if (actions.length === 0) problems.push('the module has no actions');
  for (const a of actions) {
    if (a.description.trim().length < 15) problems.push(`${a.name}: the description is under 15 characters`);
    if (a.inputSchema.type !== 'object') problems.push(`${a.name}: the input_schema does not describe an object`);
    if (Object.keys(a.outputSchema).length === 0) problems.push(`${a.name}: the output_schema is empty`);
    if (a.examples.length === 0) problems.push(`${a.name}: no example`);
  }
  return problems.length
    ? { name: 'metadata', passed: false, detail: cut(problems.join('; ')) }
    : {
        name: 'metadata',
        passed: true,
        detail: `Version ${module.version}, a description, and ${actions.length} action(s) each with a description, input and output schemas and at least one example.`,
      };
}

/** A request signed with a wrong secret must be refused (401/403) by a well-behaved endpoint. */
async function signatureCheck(svc: Services, module: ModuleRow, action: ModuleActionRow | undefined): Promise<CertificationCheck> {
  const name = 'http_signature';
  if (module.runtime.type !== 'http' || !action) return { name, passed: false, detail: 'No action to call.' };
  const wrongSecret = encryptSecret(svc.config.encryptionKey, generateSigningSecret('msec_'));
  const outcome = await runHttpModule({
    runtime: { ...module.runtime, secret_encrypted: wrongSecret },
    action: action.name,
    input: action.examples[0]?.input ?? {},
    timeoutMs: action.timeoutMs,
    allowPrivate: svc.config.webhooks.allowPrivate,
    encryptionKey: svc.config.encryptionKey,
  });
  const refused = !outcome.ok && /HTTP 40[13]\b/.test(outcome.message);
  if (refused)
    return { name, passed: true, detail: 'A request with a wrong X-Module-Signature was refused (HTTP 401/403), as it must be.' };
  const seen = outcome.ok ? 'it answered 2xx with an output' : `${outcome.code}: ${outcome.message}`;
  return {
    name,
    passed: false,
    detail: cut(
      `A request with a wrong X-Module-Signature was not refused with 401/403 (${seen}): the endpoint must verify the signature (docs/publishing.md).`,
    ),
  };
}

// ---------------------------------------------------------------------------------------------

class Runner {
  crashed = false;
  private samples: number[] = [];
  private limitProblems: string[] = [];

  constructor(
    private readonly svc: Services,
    private readonly module: ModuleRow,
    private readonly deadline: number,
  ) {}

  async examplesCheck({ action, nondeterministic, network, examples }: ActionPlan): Promise<CertificationCheck> {
    const name = `examples:${action.name}`;
    if (examples.length === 0) return { name, passed: false, detail: 'The action has no example.' };
    if (network) {
      let bad = -1;
      for (const [i, e] of examples.entries()) {
        if ((await this.checkOutput(action, e.output)).valid !== true) {
          bad = i;
          break;
        }
      }
      return bad >= 0
        ? { name, passed: false, detail: `Example ${bad + 1}: the declared output does not match output_schema.` }
        : {
            name,
            passed: true,
            detail: `${examples.length} example(s) not run (they call third-party hosts); their declared outputs match output_schema.`,
          };
    }
    for (const [i, example] of examples.entries()) {
      const { outcome, ms } = await this.run(action, (example.input ?? {}) as Record<string, unknown>, true);
      this.samples.push(ms);
      if (!outcome.ok) {
        if (outcome.code !== 'invalid_input') this.crashed = true;
        return { name, passed: false, detail: cut(`Example ${i + 1} failed: ${outcome.code}: ${outcome.message}`) };
      }
      const output = JSON.parse(JSON.stringify(outcome.output ?? null)) as unknown;
      const checked = await this.checkOutput(action, output);
      if (checked.valid !== true) {
        const why =
          checked.valid === false ? JSON.stringify(checked.issues[0] ?? {}) : `the output_schema could not decide (${checked.reason})`;
        return { name, passed: false, detail: cut(`Example ${i + 1}: the output does not match output_schema: ${why}`) };
      }
      if (!nondeterministic && !isDeepStrictEqual(output, example.output)) {
        return {
          name,
          passed: false,
          detail: cut(
            `Example ${i + 1}: the output differs from the expected one: got ${JSON.stringify(output)}, expected ${JSON.stringify(example.output)}`,
          ),
        };
      }
    }
    const how = nondeterministic
      ? 'match output_schema (nondeterministic: not compared)'
      : 'equal the expected outputs and match output_schema';
    return { name, passed: true, detail: `${examples.length} example(s) ran; their outputs ${how}.` };
  }

  /**
   * Inputs the input_schema refuses must end `invalid_input`; those it accepts (an oversized
   * string without maxLength) may fail, but cleanly: never a timeout or a crash.
   */
  async malformedCheck({ action, network, examples }: ActionPlan): Promise<CertificationCheck> {
    const name = `malformed_inputs:${action.name}`;
    const valid = (examples[0]?.input ?? {}) as Record<string, unknown>;
    const cases = malformedInputs(action.inputSchema, valid);
    let ran = 0;
    for (const { label, input } of cases) {
      const checked = await this.checkInput(action, input);
      if (checked.valid === undefined)
        return { name, passed: false, detail: cut(`${label}: the input_schema could not decide (${checked.reason})`) };
      const refused = !checked.valid;
      if (!refused && network) continue;
      const { outcome } = await this.run(action, input, !refused);
      ran++;
      if (refused && (outcome.ok || outcome.code !== 'invalid_input')) {
        return {
          name,
          passed: false,
          detail: cut(`${label}: expected invalid_input, got ${outcome.ok ? 'a success' : `${outcome.code}: ${outcome.message}`}`),
        };
      }
      if (!outcome.ok && (outcome.code === 'timeout' || CRASH_MESSAGE.test(outcome.message))) {
        this.crashed = true;
        return { name, passed: false, detail: cut(`${label}: ${outcome.code}: ${outcome.message}`) };
      }
    }
    return {
      name,
      passed: true,
      detail: `${ran} malformed input(s) (missing, wrong-typed, out-of-bound, oversized fields) ended cleanly: invalid_input, or a clean answer where the schema allows them.`,
    };
  }

  async latencyCheck(plans: ActionPlan[]): Promise<CertificationCheck> {
    for (const { action, network, examples } of plans) {
      const example = examples[0];
      if (network || !example) continue;
      for (let i = 0; i < LATENCY_RUNS_PER_ACTION; i++) {
        const { ms } = await this.run(action, (example.input ?? {}) as Record<string, unknown>, true);
        this.samples.push(ms);
      }
    }
    const p95 = this.p95();
    if (p95 === null) return { name: LATENCY_CHECK, passed: true, detail: 'Not measured: every action calls third-party hosts.' };
    const within = p95 <= LATENCY_BUDGET_MS;
    return {
      name: LATENCY_CHECK,
      passed: within,
      detail: `p95 ${p95} ms over ${this.samples.length} runs, ${within ? 'within' : 'over'} the budget of ${LATENCY_BUDGET_MS} ms.`,
    };
  }

  limitsCheck(): CertificationCheck {
    const name = 'runtime_limits';
    if (this.limitProblems.length)
      return { name, passed: false, detail: cut(`Past the sandbox's limits: ${this.limitProblems.join('; ')}`) };
    return { name, passed: true, detail: 'No run timed out, ran out of memory or overflowed its stack in the sandbox.' };
  }

  p95(): number | null {
    if (this.samples.length === 0) return null;
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[Math.ceil(0.95 * sorted.length) - 1]!;
  }

  /**
   * One run through the engine; `ms` is the run itself, not the wait for a worker. Inputs the
   * schema refuses never reach a worker, so they take no lease.
   */
  private async run(
    action: ModuleActionRow,
    input: Record<string, unknown>,
    needsWorker: boolean,
  ): Promise<{ outcome: Outcome; ms: number }> {
    this.assertBeforeDeadline();
    const queue = needsWorker ? workerQueue(this.svc, this.module, action) : undefined;
    const lease = queue ? await this.admit(queue) : undefined;
    const started = performance.now();
    try {
      const outcome = await runValidated(this.svc, this.module, action, input, lease);
      if (!outcome.ok && (outcome.code === 'timeout' || CRASH_MESSAGE.test(outcome.message)))
        this.limitProblems.push(`${action.name}: ${outcome.code}: ${outcome.message}`);
      return { outcome, ms: actionLatencyMs(started, outcome) };
    } finally {
      lease?.release();
    }
  }

  /** A worker lease, waiting as long as the run's deadline allows (a run is never refused for load). */
  private async admit(queue: FairQueue): Promise<Lease> {
    for (;;) {
      const lease = await queue.admit(CERTIFICATION_TENANT, Math.max(1, Math.min(5000, this.deadline - Date.now())));
      if (lease) return lease;
      this.assertBeforeDeadline();
    }
  }

  private assertBeforeDeadline(): void {
    if (Date.now() > this.deadline) throw new CertificationDeadlineError('The certification run passed its deadline.');
  }

  /** A value against the action's output_schema (a published module's off the request thread: engine.ts checkSchema). */
  private async checkOutput(action: ModuleActionRow, value: unknown): Promise<SchemaCheck> {
    return checkSchema(this.svc, this.module, `certification-output:${inputSchemaKey(this.module, action)}`, action.outputSchema, value);
  }

  private async checkInput(action: ModuleActionRow, value: unknown): Promise<SchemaCheck> {
    return checkSchema(this.svc, this.module, inputSchemaKey(this.module, action), action.inputSchema, value);
  }
}

function cut(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS - 1)}…` : text;
}
