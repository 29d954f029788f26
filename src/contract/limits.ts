/**
 * Field limits of the API's inputs that the dashboard's forms check too, so a form refuses what
 * the API would: the API's zod schemas and the forms both read them from here.
 */

/** Account passwords (the identity provider's sign-up, recovery and change). */
export const PASSWORD_LENGTH = { min: 8, max: 72 * 4 } as const;

/** An email address (RFC 5321's longest path). */
export const EMAIL_MAX_LENGTH = 254;

/** A tenant's `agent_name` at registration. */
export const TENANT_NAME_MAX_LENGTH = 100;

/** The API key presented to link a tenant to a user (POST /api/v1/auth/link). */
export const LINK_API_KEY_MAX_LENGTH = 200;

/** API keys: their name and how long a rotated key keeps working. */
export const KEY_NAME_MAX_LENGTH = 100;
/** Entries per list of a key policy (modules, actions, pins, ip_allow). */
export const POLICY_LIST_MAX = 100;
export const KEY_GRACE_MAX_SECONDS = 86_400;

/** Webhook subscriptions: the receiver URL and the signing secret (printable ASCII without spaces). */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_SECRET_LENGTH = { min: 8, max: 256 } as const;
export const WEBHOOK_SECRET_PATTERN = /^[\x21-\x7e]+$/;

/** Failed deliveries in a row that disable a webhook subscription. */
export const WEBHOOK_AUTO_DISABLE_AFTER = 10;
/** Most requests per second a subscription may be paced to (`rate_limit_per_second`). */
export const WEBHOOK_RATE_LIMIT_MAX = 1000;
/** Longest event filter expression, in characters. */
export const WEBHOOK_FILTER_MAX_LENGTH = 1024;

/** Calls in one tRPC batch request (`/api/trpc/a,b,c?batch=1`), at most; the dashboard's client batches up to it. */
export const TRPC_BATCH_MAX_CALLS = 20;

/** Search text of the catalog and the executions list (`q`). */
export const SEARCH_MAX_LENGTH = 200;

/** An operator's per-tenant request limit (PUT /api/v1/admin/tenants/{id}/plan). */
export const REQUESTS_PER_MINUTE_MAX = 100_000_000;
