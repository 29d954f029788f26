import type { z } from 'zod';
import type { EVENT_DATA_SCHEMAS, EventType, TEST_EVENT_DATA_SCHEMA } from './events';

/**
 * One example `data` per event kind, beside the schemas of events.ts: the event catalog
 * (`GET /api/v1/webhooks/event-types`) serves them, and a test send of a kind
 * (`POST /api/v1/webhooks/{id}/test {event_type}`) delivers them. Typed by each schema's input, so
 * a kind added to EVENT_DATA_SCHEMAS fails the type check until it has an example here; the tests
 * parse each one with its schema too.
 */
type ExampleOfEachKind = { [K in EventType]: z.input<(typeof EVENT_DATA_SCHEMAS)[K]> };

const examples = {
  'execution.completed': {
    execution_id: 'exe_01JDZ4W6Q8Y0K3T9XG2M5N7P1R',
    module: 'text',
    action: 'slugify',
    status: 'success',
    latency_ms: 3,
    request_id: 'req_5f1c2a9b7e3d4c60',
    tenant_id: '3f2a9c1b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    output: { slug: 'hello-world' },
  },
  'execution.failed': {
    execution_id: 'exe_01JDZ4X2B7C1D9E5F3G8H6J4K2',
    module: 'text',
    action: 'slugify',
    status: 'failed',
    latency_ms: 2,
    request_id: 'req_8a7b6c5d4e3f2a10',
    tenant_id: '3f2a9c1b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    error: { code: 'invalid_input', message: "The input does not match the action's schema: /text is required." },
  },
  'module.installed': { module: 'text', source: 'explicit', installed_at: '2026-11-22T15:30:39.059Z' },
  'module.uninstalled': { module: 'text', uninstalled_at: '2026-11-22T16:02:11.430Z' },
  'certification.completed': {
    module: 'text',
    tier: 'silver',
    previous_tier: 'bronze',
    trust_score: 82,
    checks_passed: 11,
    checks_total: 12,
    report_url: '/api/v1/certification/text/report',
  },
  'certification.tier_changed': { module: 'text', tier: 'silver', previous_tier: 'bronze', direction: 'upgrade' },
  'billing.limit_approaching': {
    tenant_id: '3f2a9c1b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    plan: 'pro',
    used: 80_000,
    limit: 100_000,
    percent: 80,
    period_end: '2026-12-01T00:00:00.000Z',
  },
  'billing.limit_exceeded': {
    tenant_id: '3f2a9c1b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    plan: 'pro',
    used: 100_000,
    limit: 100_000,
    overage: true,
    period_end: '2026-12-01T00:00:00.000Z',
  },
  'billing.invoice_created': {
    invoice_id: 'inv_01JDZ5A0M3N8P2Q7R1S6T4V9W5',
    number: 'AMP-3F2A9C1B-0001',
    tenant_id: '3f2a9c1b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    period_start: '2026-11-01T00:00:00.000Z',
    period_end: '2026-12-01T00:00:00.000Z',
    total_usd: '29.25',
    currency: 'usd',
    status: 'open',
    invoice_url: '/api/v1/billing/invoices/inv_01JDZ5A0M3N8P2Q7R1S6T4V9W5',
  },
  'trust.score_changed': { module: 'text', score: 87, previous_score: 80, reason: 'certification' },
  'workflow.completed': {
    workflow_id: 'wf_01JDZ5C4E6G8J0L2N4Q6S8U0W2',
    run_id: 'run_01JDZ5D5F7H9K1M3P5R7T9V1X3',
    workflow_version: 2,
    status: 'completed',
    outputs: { publish: { slug: 'hello-world' } },
    run_url: '/api/v1/workflows/wf_01JDZ5C4E6G8J0L2N4Q6S8U0W2/runs/run_01JDZ5D5F7H9K1M3P5R7T9V1X3',
    duration_ms: 1840,
    completed_at: '2026-11-22T15:31:02.512Z',
  },
  'workflow.failed': {
    workflow_id: 'wf_01JDZ5C4E6G8J0L2N4Q6S8U0W2',
    run_id: 'run_01JDZ5E6G8J0L2N4Q6S8U0W2Y4',
    workflow_version: 2,
    status: 'failed',
    failed_step: 'publish',
    error: { code: 'module_error', message: 'The module answered 502.' },
    completed_steps: ['fetch', 'slugify'],
    failed_at: '2026-11-22T15:32:40.007Z',
  },
  'workflow.waiting': {
    workflow_id: 'wf_01JDZ5C4E6G8J0L2N4Q6S8U0W2',
    run_id: 'run_01JDZ5F7H9K1M3P5R7T9V1X3Z5',
    workflow_version: 2,
    step: 'approve_refund',
    kind: 'approval',
    prompt: 'Refund 42.00 USD to order 1009?',
    approvers: ['admin'],
    timeout_at: '2026-11-23T15:30:00.000Z',
    run_url: '/api/v1/workflows/wf_01JDZ5C4E6G8J0L2N4Q6S8U0W2/runs/run_01JDZ5F7H9K1M3P5R7T9V1X3Z5',
    approve_url: '/api/v1/workflows/wf_01JDZ5C4E6G8J0L2N4Q6S8U0W2/runs/run_01JDZ5F7H9K1M3P5R7T9V1X3Z5/steps/approve_refund/approve',
    reject_url: '/api/v1/workflows/wf_01JDZ5C4E6G8J0L2N4Q6S8U0W2/runs/run_01JDZ5F7H9K1M3P5R7T9V1X3Z5/steps/approve_refund/reject',
  },
  'webhook.disabled': {
    webhook_id: 'wh_01JDZ5G8J0L2N4Q6S8U0W2Y4A6',
    url: 'https://example.com/hooks/amp',
    consecutive_failures: 10,
    disabled_at: '2026-11-22T18:04:51.220Z',
    failing_since: '2026-11-22T17:40:12.004Z',
    last_status_code: 500,
    last_error: 'The receiver answered 500.',
  },
  'key.limit_approaching': {
    key_id: 'key_01JDZ5H9K1M3P5R7T9V1X3Z5B7',
    limit: 'spend_cap_usd',
    used: '4.00',
    cap: '5.00',
    period_end: '2026-12-01T00:00:00.000Z',
  },
  'key.limit_exceeded': {
    key_id: 'key_01JDZ5H9K1M3P5R7T9V1X3Z5B7',
    limit: 'executions_per_month',
    used: 1000,
    cap: 1000,
    period_end: '2026-12-01T00:00:00.000Z',
  },
  // Checked against every kind's schema; a key beyond the kinds (a kind being added) is allowed.
} satisfies ExampleOfEachKind & Record<string, object>;

export const EVENT_EXAMPLES: ExampleOfEachKind = examples;

/** The `webhook.test` event's example (the real one names the subscription and tenant it is sent to). */
export const TEST_EVENT_EXAMPLE: z.input<typeof TEST_EVENT_DATA_SCHEMA> = {
  subscription_id: 'wh_01JDZ5F7H9K1M3P5R7T9V1X3Z5',
  tenant_id: '3f2a9c1b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  message: 'A test event from the Agent Module Platform.',
};
