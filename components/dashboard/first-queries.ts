/**
 * The inputs of the queries dashboard pages make first. The page's client component asks with
 * them and its server page prefetches them (app/_lib/prefetch.tsx), so both name the same cache
 * entry: the first HTML then carries the data. Plain values in a module without 'use client', so
 * that server pages get the values themselves.
 */
export const KEYS_PAGE_SIZE = 50;
export const KEYS_LIST = { limit: KEYS_PAGE_SIZE };
/** The executions page without a search or filter in its URL. */
export const EXECUTIONS_LIST = { limit: 25 };
export const WEBHOOKS_LIST = { limit: 100 };
export const INVOICES_LIST = { limit: 24 };
export const WORKFLOWS_LIST = { limit: 100 };
export const MODULES_LIST = { limit: 100 };
export const MEMORY_AGENTS = { limit: 100 };
/** A webhook's page opens on the last 24 hours of its statistics. */
export const WEBHOOK_STATS_RANGE = '24h' as const;
/** A module's page shows the latest checks of its trust history. */
export const MODULE_TRUST_HISTORY = 5;
/** The overview: the latest executions, and one key and one webhook to tell whether there are any. */
export const OVERVIEW_LATEST_EXECUTIONS = { limit: 8 };
export const OVERVIEW_ANY = { limit: 1 };
export const MEMBERS_LIST = { limit: 100 };
/** The audit log without a filter in its URL. */
export const AUDIT_LOG_LIST = { limit: 50 };
/** A workflow's page lists its latest runs (any status). */
export const WORKFLOW_RUNS_PAGE_SIZE = 50;
/** The operators' page: tenants, disabled subscriptions and the latest failed deliveries. */
export const ADMIN_TENANTS = { limit: 100 };
export const ADMIN_DISABLED_WEBHOOKS = { limit: 100 };
export const ADMIN_FAILED_DELIVERIES = { limit: 50 };
export const ADMIN_AUDIT_LOG = { limit: 25 };
