import type { EventType } from '@/src/contract/events';
import { PLAN_FEATURES, planRequiredMessage } from '@/src/contract/plans';

/**
 * The event kinds and when each is sent, for the event picker. Typed by the API's
 * own `EventType`, so a kind added to or removed from EVENT_TYPES fails the type check until this
 * list follows.
 */
export const EVENT_MEANINGS: Record<EventType, string> = {
  'execution.completed': 'A module action succeeded',
  'execution.failed': 'A module action failed (timeout, bad input, runtime crash)',
  'module.installed': 'A module was installed (explicitly or on first use)',
  'module.uninstalled': 'A module was removed',
  'certification.completed': 'A certification run finished',
  'certification.tier_changed': 'A certification tier went up or down',
  'billing.limit_approaching': 'Usage reached 80% of the monthly quota',
  'billing.limit_exceeded': 'The monthly execution quota was reached',
  'billing.invoice_created': 'A new invoice was generated',
  'trust.score_changed': 'A trust score moved significantly',
  'workflow.completed': 'A multi-step workflow finished',
  'workflow.failed': 'A workflow step failed',
  'webhook.disabled': 'Another of your webhooks was disabled after failing',
};

export const EVENT_KINDS = Object.keys(EVENT_MEANINGS) as EventType[];

/** The lowest plan with webhooks. */
export const WEBHOOKS_PLAN = PLAN_FEATURES.webhooks.minPlan;

/** What the API answers a plan without webhooks (403 `plan_required`), shown without asking it. */
export const WEBHOOKS_REQUIREMENT = planRequiredMessage(WEBHOOKS_PLAN, PLAN_FEATURES.webhooks.label);
