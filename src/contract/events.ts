import { z } from 'zod';

/** The event kinds a webhook subscription can ask for (docs/webhooks.md). */
export const EVENT_TYPES = [
  'execution.completed',
  'execution.failed',
  'module.installed',
  'module.uninstalled',
  'certification.completed',
  'certification.tier_changed',
  'billing.limit_approaching',
  'billing.limit_exceeded',
  'billing.invoice_created',
  'trust.score_changed',
  'workflow.completed',
  'workflow.failed',
  'workflow.waiting',
  'webhook.disabled',
  'key.limit_approaching',
  'key.limit_exceeded',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The `data` of each event kind: the contract receivers code against (published in the OpenAPI
 * document's `webhooks` section). Producers pass objects of these shapes to the outbox (`out.emit`).
 */
const iso = z.iso.datetime().describe('ISO 8601 UTC timestamp');

const executionBase = {
  execution_id: z.string(),
  module: z.string(),
  action: z.string(),
  latency_ms: z.number().int(),
  request_id: z.string(),
  tenant_id: z.string(),
};

const keyLimitData = z.object({
  key_id: z.string(),
  limit: z.enum(['executions_per_month', 'spend_cap_usd']).describe("The cap of the key's policy"),
  used: z.union([z.number().int(), z.string()]).describe('Executions this cycle, or the spend in USD ("4.00") for `spend_cap_usd`'),
  cap: z.union([z.number().int(), z.string()]).describe('The cap: executions, or USD ("5.00") for `spend_cap_usd`'),
  period_end: iso.describe('When the cycle ends and the count starts again'),
});

export const EVENT_DATA_SCHEMAS = {
  'execution.completed': z
    .object({
      ...executionBase,
      status: z.literal('success'),
      output: z.unknown().describe('The action output; a `{summary, bytes}` object when `truncated`'),
      truncated: z.literal(true).optional().describe('Present when the output was too large for the 64 KB envelope'),
      full_result_url: z
        .string()
        .optional()
        .describe('Absolute URL (on PUBLIC_BASE_URL) of the execution record holding the full output (with `truncated`)'),
    })
    .describe('A module action succeeded.'),
  'execution.failed': z
    .object({
      ...executionBase,
      status: z.literal('failed'),
      error: z.object({ code: z.string(), message: z.string() }),
    })
    .describe('A module action failed (timeout, bad input, runtime crash).'),
  'module.installed': z
    .object({ module: z.string(), source: z.enum(['explicit', 'first_use']), installed_at: iso })
    .describe('The tenant installed a module, explicitly or by first use.'),
  'module.uninstalled': z.object({ module: z.string(), uninstalled_at: iso }).describe('The tenant removed a module.'),
  'certification.completed': z
    .object({
      module: z.string(),
      tier: z.string(),
      previous_tier: z.string(),
      trust_score: z.number().int(),
      checks_passed: z.number().int(),
      checks_total: z.number().int(),
      report_url: z.string().describe('Path of the report endpoint, `/api/v1/certification/{module}/report`'),
    })
    .describe(
      "A certification run finished (manual, after a publish or update, or weekly). Sent to the module's publisher and every tenant that installed it.",
    ),
  'certification.tier_changed': z
    .object({
      module: z.string(),
      tier: z.string(),
      previous_tier: z.string(),
      direction: z.enum(['upgrade', 'downgrade']),
    })
    .describe("A module's certification tier went up or down."),
  'billing.limit_approaching': z
    .object({
      tenant_id: z.string(),
      plan: z.string(),
      used: z.number().int(),
      limit: z.number().int(),
      percent: z.number().int().describe('Share of the monthly limit used, 80 or more'),
      period_end: iso,
    })
    .describe('Usage reached 80% of the monthly execution limit.'),
  'billing.limit_exceeded': z
    .object({
      tenant_id: z.string(),
      plan: z.string(),
      used: z.number().int(),
      limit: z.number().int(),
      overage: z.boolean().describe('True when executions continue as billed overage, false when they are paused'),
      period_end: iso,
    })
    .describe('The monthly execution limit was reached.'),
  'billing.invoice_created': z
    .object({
      invoice_id: z.string().describe('`inv_...`'),
      number: z.string().describe('Human-readable number, sequential per tenant, e.g. "AMP-3F2A9C1B-0001"'),
      tenant_id: z.string(),
      period_start: iso.describe('Start of the billed cycle (inclusive)'),
      period_end: iso.describe('End of the billed cycle (exclusive: the first instant of the next cycle)'),
      total_usd: z.string().describe('Amount due: a decimal string in USD with two decimals, e.g. "29.25"'),
      currency: z.literal('usd'),
      status: z.enum(['open', 'paid', 'void']).describe('`open` when created'),
      invoice_url: z.string().describe('Path of the invoice endpoint (`/api/v1/billing/invoices/{id}`; append `.pdf` for the PDF)'),
    })
    .describe('An invoice was generated: a billing cycle closed with something to bill (one invoice per tenant and cycle).'),
  'trust.score_changed': z
    .object({
      module: z.string(),
      score: z.number().int().describe('The new trust score, 0–100'),
      previous_score: z.number().int(),
      reason: z
        .enum(['certification', 'feedback', 'usage'])
        .describe(
          'What triggered the recomputation: a certification run, community feedback, or the daily recomputation from execution records',
        ),
    })
    .describe("A module's trust score changed by 5 points or more."),
  'workflow.completed': z
    .object({
      workflow_id: z.string(),
      run_id: z.string(),
      workflow_version: z.number().int().describe('The definition version the run started with'),
      status: z.literal('completed'),
      outputs: z
        .record(z.string(), z.unknown())
        .describe(
          'The outputs of the leaf steps (those no other step depends on), by step id; `{}` with `outputs_truncated` when over 48 KB',
        ),
      outputs_truncated: z
        .literal(true)
        .optional()
        .describe('Present when the outputs were too large for the envelope: read them from `run_url`'),
      run_url: z.string().describe('Path of the run (`/api/v1/workflows/{id}/runs/{run_id}`)'),
      duration_ms: z.number().int(),
      completed_at: iso,
    })
    .describe('Every step of a workflow run completed (or was skipped by its `if`).'),
  'workflow.failed': z
    .object({
      workflow_id: z.string(),
      run_id: z.string(),
      workflow_version: z.number().int().describe('The definition version the run started with'),
      status: z.literal('failed'),
      failed_step: z.string().describe('Id of the step that failed (after its retries)'),
      error: z.object({ code: z.string(), message: z.string() }),
      completed_steps: z.array(z.string()).describe('Ids of the steps that had succeeded'),
      failed_at: iso,
    })
    .describe('A step of a workflow run failed.'),
  'workflow.waiting': z
    .object({
      workflow_id: z.string(),
      run_id: z.string(),
      workflow_version: z.number().int().describe('The definition version the run started with'),
      step: z.string().describe('Id of the approval step'),
      kind: z.literal('approval'),
      prompt: z.string().describe('What the approver is asked, with its references resolved'),
      approvers: z.array(z.string()).describe('Roles or emails who may decide; empty: any member or key with `modules:execute`'),
      timeout_at: iso.describe('When the step fails with `timeout` if nobody has decided'),
      run_url: z.string().describe('Path of the run'),
      approve_url: z.string().describe('Path to POST `{comment?}` to approve'),
      reject_url: z.string().describe('Path to POST `{comment?}` to reject'),
    })
    .describe('A workflow run reached an approval step and waits for a person to approve or reject it.'),
  'key.limit_approaching': keyLimitData.describe(
    "An API key's executions or spend reached 80% of a cap its policy sets for the billing cycle (once per key and cycle).",
  ),
  'key.limit_exceeded': keyLimitData.describe(
    "An API key's executions or spend reached a cap its policy sets: its further calls are refused (429 `key_limit_exceeded`) until the next cycle (once per key and cycle).",
  ),
  'webhook.disabled': z
    .object({
      webhook_id: z.string().describe('The subscription that was disabled (`wh_...`)'),
      url: z.string().nullable().describe('Its receiver'),
      consecutive_failures: z.number().int().describe('Failed deliveries in a row that disabled it'),
      disabled_at: iso,
      failing_since: iso.nullable().describe('When the run of failures reached its `failure_alert_threshold`'),
      last_status_code: z.number().int().nullable().describe('Status of the last failed attempt; null when the receiver did not answer'),
      last_error: z
        .string()
        .nullable()
        .describe('Error of the last failed attempt (e.g. `The receiver answered 500.`, a timeout, a refused connection)'),
    })
    .describe(
      "One of the tenant's webhook subscriptions was disabled after too many failed deliveries in a row. Sent to the tenant's other active subscriptions that take it, never to the disabled one.",
    ),
} satisfies Record<EventType, z.ZodType>;

/** The event the test endpoint sends (deliberately not one of the kinds above). */
export const TEST_EVENT_TYPE = 'webhook.test';

export const TEST_EVENT_DATA_SCHEMA = z
  .object({ subscription_id: z.string(), tenant_id: z.string(), message: z.string() })
  .describe('Sent by POST /api/v1/webhooks/{id}/test; never counts toward auto-disable.');
