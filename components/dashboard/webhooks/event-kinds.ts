import { EVENT_DATA_SCHEMAS, EVENT_TYPES, type EventType } from '@/src/contract/events';
import { PLAN_FEATURES, planRequiredMessage } from '@/src/contract/plans';

/**
 * The event kinds and what each means, for the event picker: the descriptions of the API's own
 * data schemas, the ones the event catalog (GET /api/v1/webhooks/event-types) serves, so the
 * picker, the catalog and the OpenAPI document say the same thing.
 */
export const EVENT_MEANINGS = Object.fromEntries(EVENT_TYPES.map((kind) => [kind, EVENT_DATA_SCHEMAS[kind].description ?? kind])) as Record<
  EventType,
  string
>;

export const EVENT_KINDS: readonly EventType[] = EVENT_TYPES;

/** The lowest plan with webhooks. */
export const WEBHOOKS_PLAN = PLAN_FEATURES.webhooks.minPlan;

/** What the API answers a plan without webhooks (403 `plan_required`), shown without asking it. */
export const WEBHOOKS_REQUIREMENT = planRequiredMessage(WEBHOOKS_PLAN, PLAN_FEATURES.webhooks.label);
