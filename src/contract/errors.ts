/**
 * The ONE table of error codes with their HTTP status and default message. Pure data, so the
 * docs pages read it as the service does; src/lib/errors.ts builds AppError on it.
 */
export const ERRORS = {
  invalid_request: { status: 400, message: 'The request is not valid.' },
  unauthorized: { status: 401, message: 'A valid API key or bearer token is required.' },
  insufficient_scope: { status: 403, message: 'The credential lacks the scope this operation needs.' },
  plan_required: { status: 403, message: 'This operation needs a higher plan.' },
  policy_denied: { status: 403, message: "The API key's policy does not allow this." },
  forbidden: { status: 403, message: 'The request is not allowed.' },
  not_found: { status: 404, message: 'The resource does not exist.' },
  method_not_allowed: { status: 405, message: 'The method is not allowed on this path.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  invalid_input: { status: 422, message: 'The input does not match the action schema.' },
  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded.' },
  quota_exceeded: { status: 429, message: 'The monthly execution quota is exhausted.' },
  concurrency_limit_exceeded: { status: 429, message: 'Too many executions in flight.' },
  key_limit_exceeded: { status: 429, message: "The API key's policy limit is reached." },
  internal_error: { status: 500, message: 'An internal error occurred.' },
  module_error: { status: 502, message: 'The module failed.' },
  unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
  timeout: { status: 504, message: 'The module did not answer in time.' },
} as const;

export type ErrorCode = keyof typeof ERRORS;
