import { z } from 'zod';
import { moduleNameInPath } from '../catalog/schema';
import { listParams, pageSchema } from '../lib/pagination';

export const certificationModuleInput = z.strictObject({ module: moduleNameInPath });

export const listRunsInput = z.strictObject({ module: moduleNameInPath, ...listParams });

const tier = z.enum(['none', 'bronze', 'silver', 'gold']);

export const checkView = z
  .object({
    name: z
      .string()
      .describe(
        '`metadata`, `examples:<action>`, `malformed_inputs:<action>`, `latency`, `http_signature` (http runtime), `runtime_limits` (javascript runtime)',
      ),
    passed: z.boolean(),
    detail: z.string().describe('What was seen: on a failure, which input and what came back'),
  })
  .meta({ id: 'CertificationCheck' });

export const runView = z
  .object({
    id: z.string().describe('`crt_...`'),
    module: z.string(),
    version: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'failed']),
    trigger: z.enum(['manual', 'publish', 'schedule']),
    tier: tier.nullable().describe('Null until completed'),
    previous_tier: tier.nullable().describe("The module's tier before this run; null until completed"),
    checks_passed: z.number().int(),
    checks_total: z.number().int(),
    checks: z.array(checkView),
    p95_ms: z.number().int().nullable().describe('p95 latency over the repeated example runs'),
    error: z.string().nullable().describe('Why a `failed` run did not complete (its deadline passed, the module was removed)'),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    report_url: z.string().describe("Absolute URL of the module's report"),
  })
  .meta({ id: 'CertificationRun' });

export const startedRunView = runView
  .extend({
    shared: z
      .boolean()
      .describe('True when a run of this module version was already queued or running and is returned instead of a new one'),
  })
  .meta({ id: 'StartedCertificationRun' });

export const reportView = z
  .object({
    module: z.string(),
    version: z.string().describe('The version the latest completed run certified'),
    tier,
    previous_tier: tier,
    trust_score: z.number().int().describe("The module's current trust score (0–100)"),
    checks_passed: z.number().int(),
    checks_total: z.number().int(),
    checks: z.array(checkView),
    ran_at: z.string().nullable().describe('When the latest completed run finished; null if the module was never certified'),
    run_id: z.string().nullable(),
    p95_ms: z.number().int().nullable(),
    latency_budget_ms: z.number().int(),
    rule: z.string().describe('How the checks give the tier'),
    pending_run: runView.nullable().describe('A run queued or under way, if any'),
  })
  .meta({ id: 'CertificationReport' });

export const runList = pageSchema(runView);
