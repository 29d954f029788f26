/**
 * What each error code of ERRORS means and what a client should do about it: the served page
 * /docs/errors renders it (one section per code, `id` = the code), and every error body links
 * its code's section as `doc_url`.
 */
import { ERRORS, type ErrorCode } from './errors';

/** Where the error reference is served, relative to PUBLIC_BASE_URL. */
export const ERROR_DOCS_PATH = '/docs/errors';

/** The absolute URL of `code`'s section: `${PUBLIC_BASE_URL}/docs/errors#<code>`. */
export function errorDocUrl(publicBaseUrl: string, code: ErrorCode): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${ERROR_DOCS_PATH}#${code}`;
}

/** Whether sending the same request again can succeed, and when. */
export type RetryAdvice = 'no' | 'after_retry_after' | 'with_backoff';

export const RETRY_LABELS: Record<RetryAdvice, string> = {
  no: 'Do not retry unchanged',
  after_retry_after: 'Retry after Retry-After',
  with_backoff: 'Retry with backoff',
};

export interface ErrorField {
  name: string;
  what: string;
}

export interface ErrorDoc {
  /** What happened, in plain words. */
  meaning: string;
  /** What the client should do next. */
  action: string;
  retry: RetryAdvice;
  /** The body's fields beyond `error`, `message`, `request_id` and `doc_url`. */
  fields: readonly ErrorField[];
  /** Response headers the code sets. */
  headers: readonly string[];
}

const RETRY_AFTER_FIELDS = [
  { name: 'retry_after', what: 'Seconds to wait before retrying, as in the Retry-After header.' },
  { name: 'reset_at', what: 'The instant (ISO 8601) the limit has room again.' },
] as const;

const EXECUTION_FIELD = {
  name: 'execution',
  what: 'The failed execution record (its execution_id, status, error and latency), as GET /api/v1/executions/{id} shows it.',
} as const;

export const ERROR_DOCS = {
  invalid_request: {
    meaning:
      'The request could not be read as the operation expects: a field is missing, unknown or out of range, the body is not JSON, or the HTTP request itself is malformed.',
    action: 'Fix the request as the issues say (the first one is repeated in message), then send it again.',
    retry: 'no',
    fields: [
      { name: 'issues', what: 'A list of {path, message}: each field that is wrong and why (path is empty for the body as a whole).' },
    ],
    headers: [],
  },
  unauthorized: {
    meaning: 'No credential was sent, or the API key or bearer token is unknown, revoked or expired.',
    action: 'Send a valid API key in x-api-key (or a bearer token in Authorization). Create or rotate keys in the dashboard.',
    retry: 'no',
    fields: [
      {
        name: 'reason',
        what: 'For a valid bearer token only: session_ended (the user signed out or the session was revoked: sign in again) or no_tenant (the user is linked to no tenant: create one with POST /api/v1/auth/register, or link one).',
      },
    ],
    headers: [],
  },
  insufficient_scope: {
    meaning: 'The credential is valid but lacks the scope this operation needs.',
    action: 'Use a key that holds required_scope, or have an owner add the scope to this key.',
    retry: 'no',
    fields: [{ name: 'required_scope', what: 'The scope the operation needs, e.g. modules:execute.' }],
    headers: [],
  },
  plan_required: {
    meaning: "The tenant's plan does not include this operation or this much of it.",
    action: 'Upgrade the plan to required_plan (or above) in the dashboard, then try again.',
    retry: 'no',
    fields: [{ name: 'required_plan', what: 'The lowest plan that allows the operation.' }],
    headers: [],
  },
  policy_denied: {
    meaning:
      "The API key's policy refuses this request: the module or action is not on its allow lists, the module's trust is below the minimum, the module's definition differs from the pinned (or named) hash, the key has expired, or the client address is not allowed.",
    action:
      'Read reason and rule: call an allowed module, re-pin after reviewing the new definition, send from an allowed address, or have the owner change the policy (PUT /api/v1/keys/{key_id}/policy).',
    retry: 'no',
    fields: [
      {
        name: 'rule',
        what: 'The policy field that refused: modules, actions, min_trust_tier, min_trust_score, pins, definition_hash, expires_at or ip_allow.',
      },
      {
        name: 'reason',
        what: 'Why: module_not_allowed, trust_below_minimum, definition_changed, ip_not_allowed or key_expired.',
      },
      { name: 'step', what: 'In a chain, the index of the refused step.' },
    ],
    headers: [],
  },
  forbidden: {
    meaning: 'The request is understood but not allowed to this caller (e.g. rating your own module, or a cross-site dashboard call).',
    action: 'Do not retry; the message says what is not allowed.',
    retry: 'no',
    fields: [],
    headers: [],
  },
  not_found: {
    meaning: 'The resource or endpoint does not exist, or belongs to another tenant (which is never told apart from not existing).',
    action: 'Check the path and the identifier; list the resources to find the right one.',
    retry: 'no',
    fields: [],
    headers: [],
  },
  method_not_allowed: {
    meaning: 'The path exists but does not accept this HTTP method.',
    action: 'Use one of allowed_methods (also in the Allow header).',
    retry: 'no',
    fields: [{ name: 'allowed_methods', what: 'The methods the path accepts.' }],
    headers: ['Allow'],
  },
  conflict: {
    meaning:
      'The request conflicts with the current state: a name already taken, an Idempotency-Key whose first request is still running, or a change that would leave the tenant without a key that can manage keys.',
    action: 'Read the message, fetch the current state, and change the request accordingly.',
    retry: 'no',
    fields: [{ name: 'invitation_id', what: 'Inviting an email that has a pending invitation: that invitation (resend or revoke it).' }],
    headers: [],
  },
  payload_too_large: {
    meaning: 'The request body is larger than the endpoint accepts (1 MiB on the API).',
    action: 'Send a smaller body, e.g. split a batch or pass large data by reference.',
    retry: 'no',
    fields: [],
    headers: [],
  },
  invalid_input: {
    meaning: "The execution's input does not match the action's input schema; the execution was recorded as failed.",
    action: "Fix the input to match the action's schema (GET /api/v1/modules/{module}) and call again.",
    retry: 'no',
    fields: [EXECUTION_FIELD],
    headers: [],
  },
  rate_limit_exceeded: {
    meaning: "Too many requests in the current minute for the tenant's plan (or, without a credential, for the client address).",
    action: 'Wait the Retry-After seconds, then retry; spread requests out, or upgrade the plan for a higher limit.',
    retry: 'after_retry_after',
    fields: [{ name: 'limit', what: 'Requests allowed per window.' }, ...RETRY_AFTER_FIELDS],
    headers: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
  },
  quota_exceeded: {
    meaning: "The tenant's monthly execution quota is used up.",
    action: 'Wait until reset_at (the next billing cycle), or upgrade the plan for a larger quota or overage.',
    retry: 'after_retry_after',
    fields: [{ name: 'limit', what: 'The monthly quota of executions.' }, ...RETRY_AFTER_FIELDS],
    headers: ['Retry-After'],
  },
  concurrency_limit_exceeded: {
    meaning: 'Too many executions (or event streams) of the tenant are in flight at once, or no worker was free within the admission wait.',
    action: 'Retry after Retry-After (usually 1 second), or run fewer calls in parallel; a higher plan allows more at once.',
    retry: 'after_retry_after',
    fields: [
      { name: 'limit', what: "The tenant's slots in flight (absent when the refusal is for capacity)." },
      { name: 'reason', what: 'capacity when no worker was free within the admission wait.' },
      { name: 'wait_ms', what: 'How long the call waited for a worker (with reason capacity).' },
      { name: 'retry_after', what: 'Seconds to wait (event streams).' },
    ],
    headers: ['Retry-After'],
  },
  key_limit_exceeded: {
    meaning: "A limit of the API key's own policy is reached: its requests per minute, its executions this cycle, or its spend cap.",
    action: 'Wait until reset_at (Retry-After seconds), or have the owner raise or clear the cap in the key policy.',
    retry: 'after_retry_after',
    fields: [
      { name: 'limit', what: 'The policy field that is reached: requests_per_minute, executions_per_month or spend_cap_usd.' },
      { name: 'cap', what: "The field's value in the key policy." },
      ...RETRY_AFTER_FIELDS,
    ],
    headers: ['Retry-After'],
  },
  internal_error: {
    meaning: 'Something failed inside the service. The message is generic on purpose; the request_id lets the operator find the cause.',
    action: 'Retry with backoff; if it persists, report the request_id.',
    retry: 'with_backoff',
    fields: [],
    headers: [],
  },
  module_error: {
    meaning: 'The module ran and failed (threw, returned something invalid, or its HTTP endpoint answered an error).',
    action: "Read execution.error; retry only if the module's failure can be transient.",
    retry: 'with_backoff',
    fields: [EXECUTION_FIELD],
    headers: [],
  },
  unavailable: {
    meaning: 'The service cannot answer right now: it is starting, shutting down, or its database is unreachable.',
    action: 'Retry after the Retry-After seconds.',
    retry: 'after_retry_after',
    fields: [],
    headers: ['Retry-After'],
  },
  timeout: {
    meaning: "The module did not answer within its action's deadline; the execution was recorded as failed.",
    action: 'Retry with backoff, or send smaller input; a module that keeps timing out needs a fix by its publisher.',
    retry: 'with_backoff',
    fields: [EXECUTION_FIELD],
    headers: [],
  },
} as const satisfies Record<ErrorCode, ErrorDoc>;

/** Every code of ERRORS in the table's order, with its status and its documentation. */
export const ERROR_REFERENCE = (Object.keys(ERRORS) as ErrorCode[]).map((code) => ({
  code,
  status: ERRORS[code].status,
  ...(ERROR_DOCS[code] as ErrorDoc),
}));
